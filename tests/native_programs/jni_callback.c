/* A JNI method that calls back into Java: JniCallback.callBack(rounds) calls
 * JniCallback.work(rounds) through jni_CallStaticVoidMethod, so the samples of work have
 * native frames between two Java frames (tests/integration/mixed_mode_between_test.cpp);
 * work calls spin, native again. */
#include <jni.h>

JNIEXPORT void JNICALL Java_io_stackscope_workloads_JniCallback_callBack(JNIEnv* env, jclass owner, jint rounds) {
  jmethodID work = (*env)->GetStaticMethodID(env, owner, "work", "(I)V");
  if (work) (*env)->CallStaticVoidMethod(env, owner, work, rounds);
}

/* Called by the callback: its samples are taken in native code inside the callback. */
JNIEXPORT jlong JNICALL Java_io_stackscope_workloads_JniCallback_spin(JNIEnv* env, jclass owner, jint rounds) {
  (void)env;
  (void)owner;
  volatile jlong x = 1;
  for (jint i = 0; i < rounds; i++) x = x * 6364136223846793005LL + 1442695040888963407LL;
  return x;
}

/* A JNI method that calls back into Java: JniCallback.callBack(rounds) calls
 * JniCallback.work(rounds) through jni_CallStaticVoidMethod, so the samples of work have
 * native frames between two Java frames (tests/integration/mixed_mode_between_test.cpp);
 * work calls spin (jni_callback_spin.c), native again. */
#include <jni.h>

JNIEXPORT void JNICALL Java_io_stackscope_workloads_JniCallback_callBack(JNIEnv* env, jclass owner, jint rounds) {
  jmethodID work = (*env)->GetStaticMethodID(env, owner, "work", "(I)V");
  if (work) (*env)->CallStaticVoidMethod(env, owner, work, rounds);
}

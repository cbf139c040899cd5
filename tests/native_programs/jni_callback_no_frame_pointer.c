/* jni_callback.c's JNI method built without frame pointers (-O2 -fomit-frame-pointer, no
   inlining, no sibling calls), with one more C function between it and the JNI call:
   JniCallback.callBack(rounds) -> call_work -> jni_CallStaticVoidMethod -> JniCallback.work.
   By frame pointers alone the chain from the JNI call skips the C function of callBack (no
   function of this library saves rbp); its CFI finds it
   (tests/integration/mixed_mode_between_test.cpp). */
#include <jni.h>

__attribute__((noinline)) static void call_work(JNIEnv* env, jclass owner, jmethodID work, jint rounds) {
  (*env)->CallStaticVoidMethod(env, owner, work, rounds);
  (*env)->ExceptionCheck(env); /* work after the call: the call is no tail call */
}

JNIEXPORT void JNICALL Java_io_stackscope_workloads_JniCallback_callBack(JNIEnv* env, jclass owner, jint rounds) {
  jmethodID work = (*env)->GetStaticMethodID(env, owner, "work", "(I)V");
  if (work) call_work(env, owner, work, rounds);
}

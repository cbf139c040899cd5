/* JniCallback.spin, the native method the callback calls, in both builds of the JNI callback
 * library (jni_callback.c, jni_callback_no_frame_pointer.c). */
#include <jni.h>

/* Called by the callback: its samples are taken in native code inside the callback. */
JNIEXPORT jlong JNICALL Java_io_stackscope_workloads_JniCallback_spin(JNIEnv* env, jclass owner, jint rounds) {
  (void)env;
  (void)owner;
  volatile jlong x = 1;
  for (jint i = 0; i < rounds; i++) x = x * 6364136223846793005LL + 1442695040888963407LL;
  return x;
}

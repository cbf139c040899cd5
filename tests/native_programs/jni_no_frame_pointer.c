/* A JNI method whose C code keeps no frame pointer (built -O2 -fomit-frame-pointer, no
   inlining, no sibling calls: each function a frame of its own that only its CFI describes):
   NoFramePointerChain.run(rounds) -> jni_chain_c -> jni_chain_b -> jni_chain_a, which burns
   the CPU (tests/integration/mixed_mode_between_test.cpp). */
#include <jni.h>

/* Keeps its state and a buffer on its own stack: a frame with a CFA offset of its own. */
__attribute__((noinline)) static jlong jni_chain_a(jlong rounds) {
  volatile jlong buffer[8];
  jlong x = rounds;
  for (jlong i = 0; i < rounds; i++) {
    x = x * 6364136223846793005LL + 1442695040888963407LL;
    buffer[x & 7] = x;
  }
  return buffer[rounds & 7] + x;
}

/* rounds lives on across the call, in a callee-saved register pushed on the stack. */
__attribute__((noinline)) static jlong jni_chain_b(jlong rounds) {
  const jlong kept = rounds * 3;
  return jni_chain_a(rounds) ^ kept;
}

__attribute__((noinline)) static jlong jni_chain_c(jlong rounds) {
  const jlong kept = rounds * 5;
  return jni_chain_b(rounds) + kept;
}

JNIEXPORT jlong JNICALL Java_io_stackscope_workloads_NoFramePointerChain_run(JNIEnv* env, jclass owner, jint rounds) {
  (void)env;
  (void)owner;
  return jni_chain_c(rounds) + 1;
}

/* The C function that calls Java for late_tables.c's thread, in a library of its own that the
   thread loads with dlopen just before the call. No frame pointer: rbp is zeroed before the
   call, so a walk by frame pointers stops here for certain, and only the library's CFI, once
   the agent has read it, leads on to the thread's first function. */
#include <jni.h>

__attribute__((noinline)) void late_tables_call_java(JNIEnv* env, jclass owner, jmethodID work, jlong early_ns,
                                                     jlong late_ns) {
  __asm__ volatile("xor %%ebp, %%ebp" ::: "rbp");
  (*env)->CallStaticVoidMethod(env, owner, work, early_ns, late_ns);
  (*env)->ExceptionCheck(env); /* work after the call: the call is no tail call */
}

/* A thread a C library starts and attaches to the JVM through JNI (AttachCurrentThread), then
   calls Java from two C functions in turns, each for a few milliseconds of CPU time:
   call_via_a calls StackBottoms.work(ns, true), which runs workA, call_via_b calls
   StackBottoms.work(ns, false), which runs workB. The native frames below workA must name
   call_via_a, never call_via_b, and the other way round
   (tests/integration/mixed_mode_below_test.cpp): both C functions are made alike, are called
   from one place and call the same Java method, so their calls into Java put the entry frame
   at the same address, with the same outermost Java method, and only the return address into
   the C function tells them apart. Built without frame pointers (-O2 -fomit-frame-pointer):
   their CFI describes the frames. */
#include <jni.h>
#include <pthread.h>
#include <time.h>

static JavaVM* vm;
static jclass owner; /* a global reference to StackBottoms */
static jmethodID work;
static jlong turn_ns, total_ns;
static pthread_t attached;

static jlong thread_cpu_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (jlong)now.tv_sec * 1000000000 + now.tv_nsec;
}

__attribute__((noinline)) void call_via_a(JNIEnv* env) {
  (*env)->CallStaticVoidMethod(env, owner, work, turn_ns, JNI_TRUE);
  (*env)->ExceptionCheck(env); /* work after the call: the call is no tail call */
}

__attribute__((noinline)) void call_via_b(JNIEnv* env) {
  (*env)->CallStaticVoidMethod(env, owner, work, turn_ns, JNI_FALSE);
  (*env)->ExceptionCheck(env);
}

void* stack_bottoms_attached_main(void* unused) {
  (void)unused;
  JNIEnv* env;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, "jni-attached", NULL};
  if ((*vm)->AttachCurrentThread(vm, (void**)&env, &args) != JNI_OK) return NULL;
  for (int turn = 0; thread_cpu_ns() < total_ns; ++turn) {
    if (turn % 2 == 0) {
      call_via_a(env);
    } else {
      call_via_b(env);
    }
  }
  (*vm)->DetachCurrentThread(vm);
  return NULL;
}

JNIEXPORT jboolean JNICALL Java_io_stackscope_workloads_StackBottoms_startAttached(JNIEnv* env, jclass cls,
                                                                                   jlong turn, jlong total) {
  if ((*env)->GetJavaVM(env, &vm) != JNI_OK) return JNI_FALSE;
  owner = (jclass)(*env)->NewGlobalRef(env, cls);
  work = (*env)->GetStaticMethodID(env, cls, "work", "(JZ)V");
  turn_ns = turn;
  total_ns = total;
  return owner && work && pthread_create(&attached, NULL, stack_bottoms_attached_main, NULL) == 0;
}

JNIEXPORT void JNICALL Java_io_stackscope_workloads_StackBottoms_joinAttached(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  pthread_join(attached, NULL);
}

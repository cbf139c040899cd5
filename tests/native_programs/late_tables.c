/* A thread a C library starts and attaches to the JVM through JNI ("late-tables"), which then
   loads a second library (late_tables_caller.c) with dlopen, no JNI method of which is ever
   bound, and calls Java from it once: LateTables.work runs early, then late
   (tests/integration/mixed_mode_below_test.cpp). The agent reads the second library's
   unwinding tables only at its writer's next look at the loader's list (at most 20 ms later);
   the thread's first samples, 2 ms of CPU time into the call, come before in most runs, and
   the walk below the Java frames fails there (the caller keeps no frame pointer: only its
   CFI describes its frame). The frames below must appear once the tables are there:
   late_tables_call_java <- late_tables_thread_main <- start_thread <- __clone3 under late.
   Built without frame pointers (-O2 -fomit-frame-pointer): their CFI describes the frames. */
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdio.h>

static JavaVM* vm;
static jclass owner; /* a global reference to LateTables */
static jmethodID work;
static jlong early_ns, late_ns;
static char caller_path[4096];
static pthread_t thread;

typedef void (*CallJava)(JNIEnv* env, jclass owner, jmethodID work, jlong early_ns, jlong late_ns);

void* late_tables_thread_main(void* unused) {
  (void)unused;
  JNIEnv* env;
  JavaVMAttachArgs args = {JNI_VERSION_1_6, "late-tables", NULL};
  if ((*vm)->AttachCurrentThread(vm, (void**)&env, &args) != JNI_OK) return NULL;
  void* caller = dlopen(caller_path, RTLD_NOW);
  CallJava call = caller ? (CallJava)dlsym(caller, "late_tables_call_java") : NULL;
  if (call) {
    call(env, owner, work, early_ns, late_ns);
  } else {
    fprintf(stderr, "late_tables: %s\n", dlerror());
  }
  (*vm)->DetachCurrentThread(vm);
  return NULL;
}

JNIEXPORT jboolean JNICALL Java_io_stackscope_workloads_LateTables_start(JNIEnv* env, jclass cls, jstring path,
                                                                         jlong early, jlong late) {
  if ((*env)->GetJavaVM(env, &vm) != JNI_OK) return JNI_FALSE;
  const char* chars = (*env)->GetStringUTFChars(env, path, NULL);
  if (!chars) return JNI_FALSE;
  snprintf(caller_path, sizeof caller_path, "%s", chars);
  (*env)->ReleaseStringUTFChars(env, path, chars);
  owner = (jclass)(*env)->NewGlobalRef(env, cls);
  work = (*env)->GetStaticMethodID(env, cls, "work", "(JJ)V");
  early_ns = early;
  late_ns = late;
  return owner && work && pthread_create(&thread, NULL, late_tables_thread_main, NULL) == 0;
}

JNIEXPORT void JNICALL Java_io_stackscope_workloads_LateTables_join(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  pthread_join(thread, NULL);
}

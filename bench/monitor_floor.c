/* The JVM's own floor under the lock trace: a JVMTI agent that asks for the monitor events the
 * lock trace enables (MonitorContendedEnter/Entered, MonitorWait/Waited) and returns from each
 * callback at once. What a run with it costs over a run without any agent is what HotSpot
 * spends posting those events (leaving the fast lock paths, the state transitions around each
 * callback), which no work of the trace's own can remove. bench/lock_rounds.sh runs it beside
 * the agent: floor=-agentpath:build/lib/libmonitor_floor.so. With the option `caps`
 * (floorcaps=-agentpath:build/lib/libmonitor_floor.so=caps) it also holds the other
 * capabilities the lock trace asks for at startup (agent/session.cpp, traceCapabilities), to
 * tell whether holding them costs anything. */
#include <jvmti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Option `entered_ns=N`: each MonitorContendedEntered callback busy-waits N ns, as long as the
 * lock trace's own work there might take: what a callback's time costs a contended program
 * beyond the time itself (the thread holds the monitor during the callback). */
static long entered_ns = 0;

static long long nowNs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void JNICALL contendedEnter(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object) {
  (void)jvmti, (void)jni, (void)thread, (void)object;
}
static void JNICALL contendedEntered(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object) {
  (void)jvmti, (void)jni, (void)thread, (void)object;
  if (entered_ns > 0) {
    const long long end = nowNs() + entered_ns;
    while (nowNs() < end) {
    }
  }
}
static void JNICALL monitorWait(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jlong timeout) {
  (void)jvmti, (void)jni, (void)thread, (void)object, (void)timeout;
}
static void JNICALL monitorWaited(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jboolean timed_out) {
  (void)jvmti, (void)jni, (void)thread, (void)object, (void)timed_out;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  jvmtiEnv* jvmti = NULL;
  if ((*vm)->GetEnv(vm, (void**)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_generate_monitor_events = 1;
  const char* entered = options ? strstr(options, "entered_ns=") : NULL;
  if (entered) entered_ns = strtol(entered + strlen("entered_ns="), NULL, 10);
  if (options && strstr(options, "caps")) {
    caps.can_get_monitor_info = 1;
    caps.can_generate_native_method_bind_events = 1;
    caps.can_get_current_contended_monitor = 1;
    caps.can_generate_early_vmstart = 1;
  }
  jvmtiEventCallbacks callbacks;
  memset(&callbacks, 0, sizeof callbacks);
  callbacks.MonitorContendedEnter = contendedEnter;
  callbacks.MonitorContendedEntered = contendedEntered;
  callbacks.MonitorWait = monitorWait;
  callbacks.MonitorWaited = monitorWaited;
  const jvmtiEvent events[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                               JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};
  if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
      (*jvmti)->SetEventCallbacks(jvmti, &callbacks, sizeof callbacks) != JVMTI_ERROR_NONE) {
    fprintf(stderr, "monitor_floor: the JVM refused the monitor events\n");
    return JNI_ERR;
  }
  for (size_t i = 0; i < sizeof events / sizeof events[0]; ++i) {
    if ((*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL) != JVMTI_ERROR_NONE) return JNI_ERR;
  }
  return JNI_OK;
}

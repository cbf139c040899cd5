// The JVMTI callbacks of a session. Each but VMInit and VMDeath enters the session gate
// (session_gate.h) first: the callbacks stay registered with the JVM while a session ends,
// and one may already be running when the events are turned off.
#include <jni.h>
#include <jvmti.h>

#include <algorithm>
#include <atomic>

#include "agent/calling_thread.h"
#include "agent/java_api.h"
#include "agent/native_bind.h"
#include "agent/session.h"
#include "agent/session_gate.h"
#include "agent/stack_capture.h"

namespace stackscope::agent {

namespace {
std::atomic<bool (*)(JNIEnv*, jthread)> g_is_control_thread{nullptr};
}  // namespace

void setControlThreadCheck(bool (*is_control_thread)(JNIEnv* jni, jthread thread)) {
  g_is_control_thread.store(is_control_thread);
}

bool isAgentThread(JNIEnv* jni, jthread thread) {
  const auto is_control_thread = g_is_control_thread.load();
  return g_session->writer_thread.isWriterThread(jni, thread) || g_session->wall.isSamplerThread(jni, thread) ||
         g_session->histogram.isHistogramThread(jni, thread) || (is_control_thread && is_control_thread(jni, thread));
}

namespace {

// AsyncGetCallTrace can only name methods whose jmethodIDs exist; asking for a class's
// methods creates them, so do it for every class as soon as it is prepared.
void createMethodIds(jvmtiEnv* jvmti, jclass klass) {
  jint count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(klass, &count, &methods) == JVMTI_ERROR_NONE) {
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  }
}

void JNICALL onVMInit(jvmtiEnv*, JNIEnv* jni, jthread thread) { beginStartupSession(jni, thread); }

void JNICALL onVMDeath(jvmtiEnv*, JNIEnv* jni) { endAtVmDeath(jni); }

void JNICALL onThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  SessionUse use;
  if (use && !isAgentThread(jni, thread)) g_session->tracker.onStart(jni, thread);
}

void JNICALL onThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  SessionUse use;
  if (!use) return;
  g_session->tracker.onEnd(jni, thread);
  // A thread adopted at attach (native_threads.h) is known by its tid only.
  if (g_session->findsThreadsByTid()) g_session->native_threads.retire(gettid());
}

// Deliberately empty: HotSpot's AsyncGetCallTrace refuses to walk (returns -1) unless
// ClassLoad events are enabled, which needs a callback.
void JNICALL onClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL onClassPrepare(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jclass klass) {
  SessionUse use;
  if (!use) return;
  createMethodIds(jvmti, klass);
  bindIfJavaApi(jvmti, jni, klass);
}

// Deliberately empty: with this event enabled HotSpot is asked for debug information at
// non-safepoint locations of compiled code. Not every compiler honours the request, which is
// why turnOnNonSafepointDebug also sets the flag. Sampling sessions only: HotSpot's service
// thread decodes every compiled method's scopes to post it (about 2.4 ms of a short JDK 25
// run), and the traces' stacks, taken at calls, do not need it.
void JNICALL onCompiledMethodLoad(jvmtiEnv*, jmethodID, jint, const void*, jint, const jvmtiAddrLocationMap*,
                                  const void*) {}

// Stubs, adapters and the interpreter as the VM generates them; may come in the primordial
// phase, before VMInit, and on any thread.
void JNICALL onDynamicCodeGenerated(jvmtiEnv*, const char* name, const void* address, jint length) {
  SessionUse use;
  if (!use) return;
  g_session->code_regions.add(name, reinterpret_cast<uintptr_t>(address),
                              static_cast<uint64_t>(std::max<jint>(length, 0)));
}

// These two run inside the GC: no JVMTI or JNI, only atomics and the PerfData counters.
void JNICALL onGcStart(jvmtiEnv*) {
  SessionUse use;
  if (!use) return;
  const int64_t now = monotonicNs();
  g_session->gc.onStart(now);
  if (g_session->options.traces & kTraceGc) g_session->gc_trace.onStart(now);
}
void JNICALL onGcFinish(jvmtiEnv*) {
  SessionUse use;
  if (!use) return;
  const int64_t now = monotonicNs();
  g_session->gc.onFinish(now);
  if (g_session->options.traces & kTraceGc) g_session->gc_trace.onFinish(now);
  g_session->histogram.onGcFinish();
}

// Enabled only with exception=thrown. The trace leaves out the agent's own threads.
void JNICALL onException(jvmtiEnv*, JNIEnv* jni, jthread, jmethodID, jlocation, jobject exception,
                         jmethodID catch_method, jlocation) {
  SessionUse use;
  if (use) g_session->exceptions.onException(jni, exception, catch_method);
}

// Enabled only with the alloc trace, on the allocating thread (alloc_trace.h).
void JNICALL onSampledObjectAlloc(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jclass, jlong size) {
  SessionUse use;
  if (!use || (!callingThreadSlot() && isAgentThread(jni, thread))) return;
  g_session->allocs.onSampledAlloc(jvmti, jni, object, size);
}

// Enabled only with the live trace. Maybe inside the GC: the ring only (alloc_trace.h).
void JNICALL onObjectFree(jvmtiEnv*, jlong tag) {
  SessionUse use;
  if (use) g_session->allocs.onObjectFree(tag);
}
// The lock trace's monitor events (lock_trace.h); the park's are the wrapper's (park_hook.h).
// A virtual thread's (by the callback's `thread`) are its own state's (virtual_waits.h).
void JNICALL onMonitorContendedEnter(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject) {
  SessionUse use;
  if (use && !g_session->virtual_waits.begin(jni, thread, WaitSource::MonitorEnter)) g_session->locks.begin(jni, WaitSource::MonitorEnter);
}
void JNICALL onMonitorContendedEntered(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject monitor) {
  SessionUse use;
  if (use && !g_session->virtual_waits.end(jni, thread, monitor)) g_session->locks.end(jni, monitor);
}
void JNICALL onMonitorWait(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject, jlong) {
  SessionUse use;
  if (use && !g_session->virtual_waits.begin(jni, thread, WaitSource::ObjectWait)) g_session->locks.begin(jni, WaitSource::ObjectWait);
}
void JNICALL onMonitorWaited(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject monitor, jboolean) {
  SessionUse use;
  if (use && !g_session->virtual_waits.end(jni, thread, monitor)) g_session->locks.end(jni, monitor);
}

constexpr jvmtiEvent kAlwaysEvents[] = {JVMTI_EVENT_VM_INIT,       JVMTI_EVENT_VM_DEATH,
                                        JVMTI_EVENT_THREAD_START,  JVMTI_EVENT_THREAD_END,
                                        JVMTI_EVENT_CLASS_LOAD,    JVMTI_EVENT_CLASS_PREPARE,
                                        JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
                                        JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                        JVMTI_EVENT_GARBAGE_COLLECTION_FINISH};
constexpr jvmtiEvent kLockEvents[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                      JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};

}  // namespace

jvmtiError enableSessionEvents(jvmtiEnv* jvmti, const Options& options) {
  jvmtiEventCallbacks callbacks{};
  const bool exceptions = (options.traces & kTraceException) && options.exceptions_thrown;
  const bool allocs = options.traces & kTraceAlloc;
  const bool live = options.traces & kTraceLive;
  if (exceptions) callbacks.Exception = onException;
  if (allocs) callbacks.SampledObjectAlloc = onSampledObjectAlloc;
  if (live) callbacks.ObjectFree = onObjectFree;
  const bool locks = options.traces & kTraceLock;
  if (locks) {
    callbacks.MonitorContendedEnter = onMonitorContendedEnter;
    callbacks.MonitorContendedEntered = onMonitorContendedEntered;
    callbacks.MonitorWait = onMonitorWait;
    callbacks.MonitorWaited = onMonitorWaited;
  }
  // Thread.start0 whatever the traces (thread_parents.h); park and fillInStackTrace with theirs.
  // After an attach start0 is long bound: the event is harmless there, and the capability may
  // be missing (enabled only if held).
  jvmtiCapabilities held{};
  const bool wraps_natives = jvmti->GetCapabilities(&held) == JVMTI_ERROR_NONE && held.can_generate_native_method_bind_events;
  if (wraps_natives) {
    setWrappedNatives({locks, createdExceptions(options), true, options.native});
    callbacks.NativeMethodBind = onNativeMethodBind;
  }
  callbacks.VMInit = onVMInit;
  callbacks.VMDeath = onVMDeath;
  callbacks.ThreadStart = onThreadStart;
  callbacks.ThreadEnd = onThreadEnd;
  callbacks.ClassLoad = onClassLoad;
  callbacks.ClassPrepare = onClassPrepare;
  callbacks.CompiledMethodLoad = onCompiledMethodLoad;
  callbacks.DynamicCodeGenerated = onDynamicCodeGenerated;
  callbacks.GarbageCollectionStart = onGcStart;
  callbacks.GarbageCollectionFinish = onGcFinish;
  jvmtiError error = jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
  for (jvmtiEvent event : kAlwaysEvents) {
    if (error == JVMTI_ERROR_NONE) error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  }
  if (error == JVMTI_ERROR_NONE && options.mode != SampleMode::None)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, nullptr);
  if (error == JVMTI_ERROR_NONE && allocs) error = jvmti->SetHeapSamplingInterval(static_cast<jint>(options.alloc_interval));
  if (error == JVMTI_ERROR_NONE && wraps_natives)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, nullptr);
  return error;
}

jvmtiError enableTraceEvents(jvmtiEnv* jvmti, const Options& options) {
  jvmtiError error = JVMTI_ERROR_NONE;
  if ((options.traces & kTraceException) && options.exceptions_thrown)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION, nullptr);
  if (error == JVMTI_ERROR_NONE && (options.traces & kTraceAlloc))
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
  if (error == JVMTI_ERROR_NONE && (options.traces & kTraceLive))
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, nullptr);
  for (jvmtiEvent event : kLockEvents) {
    if (error == JVMTI_ERROR_NONE && (options.traces & kTraceLock))
      error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  }
  return error;
}

void enableVmEvents(jvmtiEnv* jvmti) {
  jvmtiEventCallbacks callbacks{};
  callbacks.VMInit = onVMInit;
  callbacks.VMDeath = onVMDeath;
  jvmti->SetEventCallbacks(&callbacks, sizeof(callbacks));
  for (jvmtiEvent event : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH})
    jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
}

void disableSessionEvents(jvmtiEnv* jvmti) {
  // Each disabled on its own (an event the session never enabled just reports an error),
  // then no callback at all: a late event finds nothing to call.
  for (jvmtiEvent event : kAlwaysEvents) jvmti->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
  for (jvmtiEvent event : kLockEvents) jvmti->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
  for (jvmtiEvent event : {JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_EXCEPTION, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                           JVMTI_EVENT_OBJECT_FREE, JVMTI_EVENT_NATIVE_METHOD_BIND})
    jvmti->SetEventNotificationMode(JVMTI_DISABLE, event, nullptr);
  const jvmtiEventCallbacks none{};
  jvmti->SetEventCallbacks(&none, sizeof(none));
}

}  // namespace stackscope::agent

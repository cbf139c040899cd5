// Entry points of libstackscope.so and the JVMTI callbacks that drive the recording.
//
// Life cycle: Agent_OnLoad refuses a second load into one process, parses options, sets up
// what child JVMs inherit (process_env.h), opens the file, installs the SIGPROF handler and
// enables events; VMInit registers the main thread, writes the recording info and starts the
// writer (and, in wall mode, the sampler) thread, then registers (wall mode) the threads
// already running; ThreadStart/ThreadEnd follow the other threads; VMDeath stops everything
// and finishes the file. Once recording, the natives of the Java API (java_api.h) are bound
// as its class is prepared. Normal exit, System.exit and an uncaught exception in main all
// pass through VMDeath.
//
// Nothing is freed at the end: a signal or a late callback may still touch the agent's data
// while the VM goes down, and the process is about to exit anyway.
#include <jni.h>
#include <jvmti.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <string>

#include "agent/agent_control.h"
#include "agent/alloc_trace.h"
#include "agent/annotation_table.h"
#include "agent/class_histogram.h"
#include "agent/clocks.h"
#include "agent/control_server.h"
#include "agent/exception_trace.h"
#include "agent/gc_trace.h"
#include "agent/cpu_sampler.h"
#include "agent/java_api.h"
#include "agent/lock_owners.h"
#include "agent/lock_trace.h"
#include "agent/lost_counters.h"
#include "agent/meta_events.h"
#include "agent/options.h"
#include "agent/native_bind.h"
#include "agent/park_hook.h"
#include "agent/throwable_hook.h"
#include "agent/process_env.h"
#include "agent/recording_file.h"
#include "agent/sample_slot.h"
#include "agent/stack_capture.h"
#include "agent/vm_structs.h"
#include "agent/sampling_health.h"
#include "agent/status.h"
#include "agent/vm_thread_anchor.h"
#include "agent/thread_metrics.h"
#include "agent/thread_registry.h"
#include "agent/thread_tracker.h"
#include "agent/virtual_threads.h"
#include "agent/vm_flags.h"
#include "agent/wall_sampler.h"
#include "agent/writer_thread.h"
#include "format/writer.h"

namespace stackscope::agent {
namespace {

// Big enough for ~50k samples/s between drains (writer_thread.cpp); 8 MB of slots.
constexpr size_t kRingSlots = 1024;
// How long VM death waits for each agent thread before giving up on it.
constexpr int64_t kStopTimeoutNs = 5'000'000'000;

bool isAgentThread(JNIEnv* jni, jthread thread);  // below: it asks the agent's threads

// The exception trace's default source, exception creation (exception_trace.h).
bool createdExceptions(const Options& options) {
  return (options.traces & kTraceException) && !options.exceptions_thrown;
}

struct Agent {
  Agent(jvmtiEnv* env, const Options& opts, std::string text)
      : jvmti(env),
        options(opts),
        options_text(std::move(text)),
        start_ns(monotonicNs()),
        start_epoch_ns(realtimeNs()),
        ring(kRingSlots),
        annotations(options.filter),
        registry(meta),
        status(gc, lost, options),
        tracker(env, registry, meta, lost, options, start_ns),
        wall(env, registry, tracker, ring, lost, gc, options.interval_ns, start_ns),
        native_threads(registry, meta, options.interval_ns, start_ns),
        gc_trace(start_ns),
        exceptions(env, start_ns, createdExceptions(options), isAgentThread),
        allocs(start_ns, options),
        locks(start_ns, options.lock_threshold_ns),
        lock_owners(env, registry, locks),
        histogram(start_ns, options.histo_interval_ns, options.histo_gcs),
        writer_thread({env, &writer, &ring, &lost, &meta, &registry, &status, &annotations, &options, &code_regions,
                       samplesJvmThreads(options) ? &native_threads : nullptr,
                       (options.traces & kTraceGc) ? &gc_trace : nullptr,
                       (options.traces & kTraceException) ? &exceptions : nullptr,
                       (options.traces & kTraceAlloc) ? &allocs : nullptr,
                       (options.traces & kTraceLock) ? &locks : nullptr,
                       (options.traces & kTraceLock) ? &lock_owners : nullptr,
                       histogramOn(options) ? &histogram : nullptr, start_ns}) {}

  static bool histogramOn(const Options& options) { return options.histo_interval_ns > 0 || options.histo_gcs > 0; }

  // Mixed mode in cpu mode samples the JVM's own threads, unless a collection-time filter
  // leaves out every thread but those of matching annotations (which JVM threads never have).
  static bool samplesJvmThreads(const Options& options) {
    return options.native && options.mode == SampleMode::Cpu && options.filter.empty();
  }

  jvmtiEnv* jvmti;
  const Options options;
  const std::string options_text;
  const int64_t start_ns;        // monotonic time 0
  const int64_t start_epoch_ns;  // the same instant on the wall clock
  format::RecordingWriter writer;
  CodeRegions code_regions;  // before the writer thread, which names stub frames with it
  SampleRing ring;
  AnnotationTable annotations;  // refers to options.filter
  LostCounters lost;
  MetaQueue meta;
  ThreadRegistry registry;
  GcClock gc;  // also tells the wall sampler which pauses were GCs
  StatusSampler status;
  ThreadTracker tracker;
  WallSampler wall;
  NativeThreads native_threads;  // the writer thread scans for them
  GcTrace gc_trace;              // fed by their callbacks only when their trace is on
  ExceptionTrace exceptions;
  AllocTrace allocs;  // fed by its callbacks only when the alloc trace is on
  LockTrace locks;
  LockOwners lock_owners;        // the writer thread's, for the lock trace
  ClassHistogram histogram;  // its thread runs only with histo=
  WriterThread writer_thread;
  std::string file_path;  // the recording being written
  ControlServer control;  // listening from load when control= is given; serving from VMInit
  // Between VMInit and VMDeath or a control stop. Changed under session_mutex: VMDeath and
  // the control server's thread may both stop the recording.
  std::mutex session_mutex;
  bool recording = false;
  format::NonSafepointDebug non_safepoint_debug = format::NonSafepointDebug::Off;
};

Agent* g_agent = nullptr;

jint refuse(bool strict, const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return strict ? JNI_ERR : JNI_OK;
}

std::string systemProperty(jvmtiEnv* jvmti, const char* name) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty(name, &value) != JVMTI_ERROR_NONE || !value) return {};
  std::string result = value;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return result;
}

// "java.version" is set by the class library, so JVMTI's (VM-level) properties lack it.
std::string javaVersion(JNIEnv* jni) {
  std::string version;
  jclass system = jni->FindClass("java/lang/System");
  jmethodID get = system ? jni->GetStaticMethodID(system, "getProperty", "(Ljava/lang/String;)Ljava/lang/String;") : nullptr;
  jstring key = get ? jni->NewStringUTF("java.version") : nullptr;
  auto value = key ? static_cast<jstring>(jni->CallStaticObjectMethod(system, get, key)) : nullptr;
  if (value && !jni->ExceptionCheck()) {
    if (const char* chars = jni->GetStringUTFChars(value, nullptr)) {
      version = chars;
      jni->ReleaseStringUTFChars(value, chars);
    }
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  return version;  // local references go with the VMInit callback's frame
}

// AsyncGetCallTrace can only name methods whose jmethodIDs exist; asking for a class's
// methods creates them, so do it for every class as soon as it is prepared.
void createMethodIds(jvmtiEnv* jvmti, jclass klass) {
  jint count = 0;
  jmethodID* methods = nullptr;
  if (jvmti->GetClassMethods(klass, &count, &methods) == JVMTI_ERROR_NONE) {
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
  }
}

void createMethodIdsForLoadedClasses(jvmtiEnv* jvmti, JNIEnv* jni) {
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return;
  // One local reference per class arrives at once: make room for them.
  jni->EnsureLocalCapacity(count);
  for (jint i = 0; i < count; ++i) {
    createMethodIds(jvmti, classes[i]);  // arrays and unprepared classes just fail
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

void writeRecordingInfo(Agent& agent, JNIEnv* jni, uint32_t sample_metrics) {
  format::RecordingInfo info;
  info.start_epoch_ns = agent.start_epoch_ns;
  // The sampling mode and the traces: the kinds of events recorded. The exception trace is
  // named only if the VM granted its capability: what the file says is what ran.
  Options running = agent.options;
  jvmtiCapabilities held{};
  if (agent.jvmti->GetCapabilities(&held) != JVMTI_ERROR_NONE) held = {};
  if (agent.options.exceptions_thrown && !held.can_generate_exception_events) running.traces &= ~kTraceException;
  if (!held.can_generate_sampled_object_alloc_events) running.traces &= ~(kTraceAlloc | kTraceLive);
  if (!held.can_tag_objects || !held.can_generate_object_free_events) running.traces &= ~kTraceLive;
  if (!held.can_generate_monitor_events) running.traces &= ~kTraceLock;
  info.mode = eventList(running);
  info.interval_ns = agent.options.interval_ns;
  info.status_interval_ns = agent.options.status_interval_ns;
  info.pid = getpid();
  info.jvm = systemProperty(agent.jvmti, "java.vm.name") + " " + javaVersion(jni);
  info.options = agent.options_text;
  info.non_safepoint_debug = agent.non_safepoint_debug;
  info.sample_metrics = sample_metrics;
  agent.writer.writeInfo(info);
}

// Where AsyncGetCallTrace gives up, the stack walk goes on with the VM's own structures: from
// a compiled method's prologue or epilogue with the code cache's layout (compiled_code.h),
// from a thread in the VM with its frame anchor (vm_thread_anchor.h); native frames (mixed
// mode) end where the code cache begins; the threads' allocation counters (thread_metrics.h).
// Bound once, at VMInit on the main thread; never freed: a late signal may still read them.
// Returns the per-thread metrics the samples will carry.
// The per-thread metrics the samples carry (thread_metrics.h): those the options ask for that
// this VM can give. Set before the main thread registers, which reads its counters' base.
uint32_t bindSampleMetrics(const Options& options, const VmStructs* vm, int64_t env_offset) {
  uint32_t metrics = options.mode == SampleMode::None ? 0 : options.sample_metrics;
  auto* counter = new AllocationCounter;
  if (!vm || !counter->bind(*vm, env_offset)) {
    if (metrics & format::kSampleAllocBytes)
      std::fprintf(stderr, "stackscope: this JVM does not show how much each thread allocated: samples carry no alloc-bytes\n");
    metrics &= ~uint32_t{format::kSampleAllocBytes};
    delete counter;
    counter = nullptr;
  }
  setSampleMetrics(metrics, counter);
  return metrics;
}

uint32_t bindVmStructures(const Options& options, JNIEnv* jni, jthread thread) {
  VmStructs vm;
  if (!vm.bind(lookupJvmSymbol)) return bindSampleMetrics(options, nullptr, 0);
  const int64_t env_offset = jniEnvOffset(jni, thread);
  auto* code = new CompiledCode;
  if (code->bind(vm)) {
    setCompiledCode(code);
  } else {
    delete code;
  }
  auto* anchor = new VmThreadAnchor;
  if (anchor->bind(vm, env_offset)) {
    setVmThreadAnchor(anchor);
  } else {
    delete anchor;
  }
  return bindSampleMetrics(options, &vm, env_offset);
}

// Parks reach the lock trace once its fields are bound and Unsafe.park is wrapped (park_hook.h);
// if either fails, monitors are still traced and the recording says parks are not.
void startParkTrace(Agent& agent, JNIEnv* jni) {
  const bool bound = agent.locks.init(agent.jvmti, jni);
  if (bound && parkHooked()) {
    setParkTrace(&agent.locks);
    return;
  }
  const std::string warning = std::string("the lock trace does not see parks (java.util.concurrent locks): ") +
                              (bound ? "Unsafe.park was not bound through the agent" : "this JVM lacks Thread.parkBlocker");
  std::fprintf(stderr, "stackscope: warning: %s\n", warning.c_str());
  agent.writer.writeAgentWarning({0, warning});
}

// The writer and wall sampler threads are never sampled: the profile is the application's.
bool isAgentThread(JNIEnv* jni, jthread thread) {
  return g_agent->writer_thread.isWriterThread(jni, thread) || g_agent->wall.isSamplerThread(jni, thread) ||
         g_agent->histogram.isHistogramThread(jni, thread) || g_agent->control.isServerThread(jni, thread);
}

// The collectors' names and the cause, in the PerfData block (gc_trace.h): it exists from
// VMInit on, not yet when the agent loads.
void bindGcCounters(GcTrace& trace) {
  VmStructs vm;
  if (vm.bind(lookupJvmSymbol)) trace.bind(perfMemoryOf(vm));
}

bool stopRecording(JNIEnv* jni);
bool isRecording();

// The control server's thread and its handler (agent_control.h), once the recording runs.
void startControl(Agent& agent, jvmtiEnv* jvmti, JNIEnv* jni) {
  AgentControlContext context;
  context.options = &agent.options;
  context.options_text = agent.options_text;
  context.file = agent.file_path;
  context.jvm = systemProperty(jvmti, "java.vm.name") + " " + javaVersion(jni);
  context.start_ns = agent.start_ns;
  context.writer_thread = &agent.writer_thread;
  context.lost = &agent.lost;
  context.recording = isRecording;
  context.stop_recording = stopRecording;
  // Lives as long as the process, like the rest of the agent (see top).
  auto* handler = new AgentControl(std::move(context));
  if (!agent.control.start(jvmti, jni, handler)) {
    std::fprintf(stderr, "stackscope: cannot start the control server thread\n");
    agent.control.stop(0);
  }
}

void JNICALL onVMInit(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread) {
  Agent& agent = *g_agent;
  agent.tracker.init(jni);
  agent.status.init(jvmti, jni, monotonicNs(), isAgentThread);
  createMethodIdsForLoadedClasses(jvmti, jni);
  // Regions generated before the event was enabled are announced again; known ones are ignored.
  jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  const uint32_t sample_metrics = bindVmStructures(agent.options, jni, thread);
  if (agent.options.traces & kTraceGc) bindGcCounters(agent.gc_trace);
  writeRecordingInfo(agent, jni, sample_metrics);  // before the writer thread exists: no lock needed
  if (agent.options.traces & kTraceLock) startParkTrace(agent, jni);
  // Throwable.fillInStackTrace(int) is bound when first called, usually after this; the
  // writer says at the end if it never was (exception_trace.h).
  if (createdExceptions(agent.options)) setFillInStackTraceTrace(&agent.exceptions);
  if (replacedForeignSigprofHandler()) agent.writer.writeAgentWarning({0, foreignHandlerWarning()});
  if (!agent.writer_thread.start(jni)) {
    std::fprintf(stderr, "stackscope: cannot start the writer thread; running unprofiled\n");
    agent.writer.finish(0);  // an empty but well-formed recording
    return;
  }
  // VMInit runs on the main thread; its ThreadStart event, if the VM sends one at all, only
  // comes later, and samples are due from now on.
  agent.tracker.onStart(jni, thread);
  if (agent.options.mode == SampleMode::Wall && !agent.wall.start(jni)) {
    std::fprintf(stderr, "stackscope: cannot start the wall-clock sampler thread\n");
  }
  if (Agent::histogramOn(agent.options) && !agent.histogram.start(jni)) {
    std::fprintf(stderr, "stackscope: cannot start the class histogram thread\n");
  }
  // After the agent's threads started, so they can be told apart; after main, which is then
  // found registered already.
  agent.tracker.registerRunning(jni, isAgentThread);
  {
    std::lock_guard<std::mutex> lock(agent.session_mutex);
    agent.recording = true;
  }
  setCaptureActive(true);
  // Active before the scan: a class prepared meanwhile is bound by its own event instead.
  setJavaApiActive(true);
  bindLoadedJavaApi(jvmti, jni);
  if (agent.control.listening()) startControl(agent, jvmti, jni);
}

// Stops every trace and finishes the file; false when not recording. At VM death, or from
// the control server's thread (stop, detach).
bool stopRecording(JNIEnv* jni) {
  Agent& agent = *g_agent;
  std::lock_guard<std::mutex> lock(agent.session_mutex);
  if (!agent.recording) return false;
  agent.recording = false;
  setJavaApiActive(false);
  if (agent.options.mode == SampleMode::Wall) agent.wall.stop(kStopTimeoutNs);
  agent.registry.close();  // no more CPU timers, no more threads
  agent.native_threads.close();
  setCaptureActive(false);
  if (Agent::histogramOn(agent.options)) agent.histogram.finish(jni, kStopTimeoutNs);  // and the last one
  agent.writer_thread.finish(jni, kStopTimeoutNs);
  agent.tracker.dropForeign(jni);
  if (const uint64_t overflowed = agent.annotations.overflowCount()) {
    std::fprintf(stderr,
                 "stackscope: %llu annotations beyond the first %u distinct ones were recorded as '%s'\n",
                 static_cast<unsigned long long>(overflowed), AnnotationTable::kDefaultMaxAnnotations,
                 AnnotationTable::kOverflowValue);
  }
  return true;
}

bool isRecording() {
  std::lock_guard<std::mutex> lock(g_agent->session_mutex);
  return g_agent->recording;
}

void JNICALL onVMDeath(jvmtiEnv*, JNIEnv* jni) {
  stopRecording(jni);  // a command the server runs meanwhile finds the recording stopped
  // After the recording ended: streaming clients get its last bytes.
  if (g_agent->options.has_control) g_agent->control.stop(kStopTimeoutNs);
}

void JNICALL onThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  if (!isAgentThread(jni, thread)) g_agent->tracker.onStart(jni, thread);
}

void JNICALL onThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) { g_agent->tracker.onEnd(jni, thread); }

// Deliberately empty: HotSpot's AsyncGetCallTrace refuses to walk (returns -1) unless
// ClassLoad events are enabled, which needs a callback.
void JNICALL onClassLoad(jvmtiEnv*, JNIEnv*, jthread, jclass) {}

void JNICALL onClassPrepare(jvmtiEnv* jvmti, JNIEnv* jni, jthread, jclass klass) {
  createMethodIds(jvmti, klass);
  bindIfJavaApi(jvmti, jni, klass);
}

// Deliberately empty: with this event enabled HotSpot is asked for debug information at
// non-safepoint locations of compiled code. Not every compiler honours the request, which is
// why turnOnNonSafepointDebug also sets the flag.
void JNICALL onCompiledMethodLoad(jvmtiEnv*, jmethodID, jint, const void*, jint, const jvmtiAddrLocationMap*,
                                  const void*) {}

// Stubs, adapters and the interpreter as the VM generates them; may come in the primordial
// phase, before VMInit, and on any thread.
void JNICALL onDynamicCodeGenerated(jvmtiEnv*, const char* name, const void* address, jint length) {
  g_agent->code_regions.add(name, reinterpret_cast<uintptr_t>(address), static_cast<uint64_t>(std::max<jint>(length, 0)));
}

// These two run inside the GC: no JVMTI or JNI, only atomics and the PerfData counters.
void JNICALL onGcStart(jvmtiEnv*) {
  const int64_t now = monotonicNs();
  g_agent->gc.onStart(now);
  if (g_agent->options.traces & kTraceGc) g_agent->gc_trace.onStart(now);
}
void JNICALL onGcFinish(jvmtiEnv*) {
  const int64_t now = monotonicNs();
  g_agent->gc.onFinish(now);
  if (g_agent->options.traces & kTraceGc) g_agent->gc_trace.onFinish(now);
  g_agent->histogram.onGcFinish();
}

// Enabled only with exception=thrown. The trace leaves out the agent's own threads.
void JNICALL onException(jvmtiEnv*, JNIEnv* jni, jthread, jmethodID, jlocation, jobject exception,
                         jmethodID catch_method, jlocation) {
  g_agent->exceptions.onException(jni, exception, catch_method);
}

// Enabled only with the alloc trace, on the allocating thread (alloc_trace.h).
void JNICALL onSampledObjectAlloc(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jobject object, jclass klass, jlong size) {
  if (!currentThreadSlot() && isAgentThread(jni, thread)) return;
  g_agent->allocs.onSampledAlloc(jvmti, jni, object, klass, size);
}

// Enabled only with the live trace. Maybe inside the GC: the ring only (alloc_trace.h).
void JNICALL onObjectFree(jvmtiEnv*, jlong tag) { g_agent->allocs.onObjectFree(tag); }
// The lock trace's monitor events (lock_trace.h); the park's are the wrapper's (park_hook.h).
void JNICALL onMonitorContendedEnter(jvmtiEnv*, JNIEnv*, jthread, jobject) { g_agent->locks.begin(WaitSource::MonitorEnter); }
void JNICALL onMonitorContendedEntered(jvmtiEnv*, JNIEnv* jni, jthread, jobject monitor) { g_agent->locks.end(jni, monitor); }
void JNICALL onMonitorWait(jvmtiEnv*, JNIEnv*, jthread, jobject, jlong) { g_agent->locks.begin(WaitSource::ObjectWait); }
void JNICALL onMonitorWaited(jvmtiEnv*, JNIEnv* jni, jthread, jobject monitor, jboolean) { g_agent->locks.end(jni, monitor); }

jvmtiError enableEvents(jvmtiEnv* jvmti, const Options& options) {
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
  const bool wraps_natives = locks || createdExceptions(options);
  if (wraps_natives) {
    setWrappedNatives({locks, createdExceptions(options)});
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
  const jvmtiEvent events[] = {JVMTI_EVENT_VM_INIT,       JVMTI_EVENT_VM_DEATH,
                               JVMTI_EVENT_THREAD_START,  JVMTI_EVENT_THREAD_END,
                               JVMTI_EVENT_CLASS_LOAD,    JVMTI_EVENT_CLASS_PREPARE,
                               JVMTI_EVENT_COMPILED_METHOD_LOAD, JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
                               JVMTI_EVENT_GARBAGE_COLLECTION_START,
                               JVMTI_EVENT_GARBAGE_COLLECTION_FINISH};
  for (jvmtiEvent event : events) {
    if (error == JVMTI_ERROR_NONE) error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  }
  if (error == JVMTI_ERROR_NONE && exceptions)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION, nullptr);
  if (error == JVMTI_ERROR_NONE && allocs) error = jvmti->SetHeapSamplingInterval(static_cast<jint>(options.alloc_interval));
  if (error == JVMTI_ERROR_NONE && allocs)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, nullptr);
  if (error == JVMTI_ERROR_NONE && live)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, nullptr);
  const jvmtiEvent lock_events[] = {JVMTI_EVENT_MONITOR_CONTENDED_ENTER, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                    JVMTI_EVENT_MONITOR_WAIT, JVMTI_EVENT_MONITOR_WAITED};
  for (jvmtiEvent event : lock_events) {
    if (error == JVMTI_ERROR_NONE && locks) error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, event, nullptr);
  }
  if (error == JVMTI_ERROR_NONE && wraps_natives)
    error = jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_NATIVE_METHOD_BIND, nullptr);
  return error;
}

// Without debug information between safepoints, a sample in compiled code is placed at the
// nearest safepoint's method and bci: often an inlined callee's or caller's, not the code that
// ran. Enabling CompiledMethodLoad events does not turn it on for C2; the flag does. Set at
// load, before the first compilation, so every compiled method carries it.
format::NonSafepointDebug turnOnNonSafepointDebug() {
  VmStructs vm;
  const FlagOutcome outcome = vm.bind(lookupJvmSymbol) ? turnOnBoolFlag(vm, "DebugNonSafepoints") : FlagOutcome::Unknown;
  if (outcome == FlagOutcome::Unknown) {
    std::fprintf(stderr,
                 "stackscope: cannot turn on DebugNonSafepoints (no HotSpot flag table): samples in compiled code "
                 "may be attributed to a nearby inlined method; -XX:+UnlockDiagnosticVMOptions "
                 "-XX:+DebugNonSafepoints does it by hand\n");
    return format::NonSafepointDebug::Off;
  }
  return format::NonSafepointDebug::On;
}

// The JVM's start for %t in file=: local time, as users read it next to their files.
std::string localStartTime() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  char text[32] = "";
  if (localtime_r(&now, &tm)) std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &tm);
  return text;
}

jint load(JavaVM* vm, const Options& options, const std::string& text) {
  void* walk = findAsyncGetCallTrace();
  if (!walk) return refuse(options.strict, "stackscope: this JVM has no AsyncGetCallTrace");
  jvmtiEnv* jvmti = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
    return refuse(options.strict, "stackscope: cannot get a JVMTI environment");
  }
  jvmtiCapabilities caps{};
  caps.can_generate_compiled_method_load_events = 1;
  caps.can_get_source_file_name = 1;
  caps.can_get_line_numbers = 1;
  caps.can_generate_garbage_collection_events = 1;
  // Only for exception=thrown: the capability alone changes how C2 compiles throws (exception_trace.h).
  if ((options.traces & kTraceException) && options.exceptions_thrown) caps.can_generate_exception_events = 1;
  // The alloc and live traces' capabilities, only when they are on (alloc_trace.h).
  if (options.traces & kTraceAlloc) caps.can_generate_sampled_object_alloc_events = 1;
  if (options.traces & kTraceLive) {
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
  }
  // Only for the lock trace, like its events (lock_trace.h).
  if (options.traces & kTraceLock) {
    caps.can_generate_monitor_events = 1;
    caps.can_get_monitor_info = 1;
    caps.can_get_current_contended_monitor = 1;
  }
  // The wrapped natives (park, fillInStackTrace), only with their traces. Early VMStart for the
  // park's: it is bound before the ordinary start phase, when its name cannot be read yet
  // (native_bind.h); fillInStackTrace's is known by its address.
  if ((options.traces & kTraceLock) || createdExceptions(options)) caps.can_generate_native_method_bind_events = 1;
  if (options.traces & kTraceLock) caps.can_generate_early_vmstart = 1;
  requestVirtualThreadSupport(jvmti, caps);
  if (jvmtiError error = jvmti->AddCapabilities(&caps); error != JVMTI_ERROR_NONE) {
    return refuse(options.strict, "stackscope: cannot get the JVMTI capabilities it needs (error " +
                                      std::to_string(error) + ")");
  }

  auto* agent = new Agent(jvmti, options, text);
  const OpenedRecording file = openRecording(agent->writer, options, getpid(), localStartTime());
  if (!file.ok) {
    delete agent;  // nothing refers to it yet
    return refuse(options.strict, file.error);
  }
  if (!file.notice.empty()) std::fprintf(stderr, "%s\n", file.notice.c_str());
  agent->file_path = file.path;
  if (std::string error; Agent::histogramOn(options) && !agent->histogram.init(vm, error)) {
    delete agent;  // nothing refers to it yet
    return refuse(options.strict, "stackscope: " + error);
  }
  if (std::string error; options.has_control && !agent->control.open(options.control, getpid(), error)) {
    // The recording goes on without it: a busy port must not cost the profile.
    std::fprintf(stderr, "stackscope: no control server: %s\n", error.c_str());
    if (options.strict) {
      delete agent;  // nothing refers to it yet
      return JNI_ERR;
    }
  } else if (options.has_control) {
    std::fprintf(stderr, "stackscope: control server on %s\n", agent->control.address().c_str());
  }
  g_agent = agent;
  agent->non_safepoint_debug = turnOnNonSafepointDebug();
  initJavaApi({&agent->meta, &agent->annotations, &agent->registry, agent->start_ns,
               options.mode == SampleMode::Cpu});
  const bool wall = options.mode == SampleMode::Wall;
  const NativeThreads* native_threads = Agent::samplesJvmThreads(options) ? &agent->native_threads : nullptr;
  setKernelCallChains(options.native && options.mode == SampleMode::Cpu);
  if (!installCaptureHandler({walk, &agent->ring, &agent->lost, agent->start_ns, wall, &agent->code_regions,
                              native_threads, options.native, vm})) {
    return refuse(options.strict, "stackscope: cannot install the SIGPROF handler");
  }
  if (replacedForeignSigprofHandler()) std::fprintf(stderr, "stackscope: warning: %s\n", foreignHandlerWarning().c_str());
  if (jvmtiError error = enableEvents(jvmti, options); error != JVMTI_ERROR_NONE) {
    return refuse(options.strict,
                  "stackscope: cannot enable JVMTI events (error " + std::to_string(error) + ")");
  }
  // JDK 21+: samples of carriers become their virtual threads'. Without it (older JVMs) a
  // carrier is sampled as itself.
  enableVirtualThreadEvents(jvmti, &agent->tracker);
  return JNI_OK;
}

}  // namespace
}  // namespace stackscope::agent

extern "C" {

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  using namespace stackscope::agent;
  const std::string text = options ? options : "";
  // Before anything else, and never fatal: a second agent would share this process's signal
  // handler and could truncate the first one's file.
  if (!claimProcess()) {
    std::fprintf(stderr, "stackscope: the agent is already loaded in this JVM; keeping the first, ignoring '%s'\n",
                 text.c_str());
    return JNI_OK;
  }
  const ParseResult parsed = parseOptions(text, getpid());
  if (!parsed.ok) return refuse(parsed.strict, parsed.error);
  const std::string children_problem = applyChildren(parsed.options.children, text);
  if (!children_problem.empty()) std::fprintf(stderr, "%s\n", children_problem.c_str());
  return load(vm, parsed.options, text);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM*, char*, void*) {
  std::fprintf(stderr, "stackscope: attach to a running JVM is not supported yet\n");
  return JNI_OK;
}

// Everything was finished at VM death; the agent's memory is deliberately kept (see top).
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {}

}  // extern "C"

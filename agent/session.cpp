// Sessions: their capabilities, start, begin, end and freeing, and the control functions of
// session_control.h. See session.h for the life cycle.
#include "agent/session.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>

#include "agent/bound_natives.h"
#include "agent/calling_thread.h"
#include "agent/control_glue.h"
#include "agent/cpu_sampler.h"
#include "agent/java_api.h"
#include "agent/park_hook.h"
#include "agent/recording_file.h"
#include "agent/sampling_health.h"
#include "agent/session_gate.h"
#include "agent/stack_capture.h"
#include "agent/throwable_hook.h"
#include "agent/thread_metrics.h"
#include "agent/virtual_threads.h"
#include "agent/vm_bindings.h"
#include "agent/vm_flags.h"
#include "agent/vm_structs.h"
#include "native/boot_id.h"

namespace stackscope::agent {

Session* g_session = nullptr;

namespace {

// How long a session's end waits for each agent thread, and for callbacks and signal
// handlers to leave, before it gives up on freeing (the memory is then kept).
constexpr int64_t kStopTimeoutNs = 5'000'000'000;

// What outlives sessions (session.h). Under g_control.
struct AgentProcess {
  JavaVM* vm = nullptr;
  jvmtiEnv* jvmti = nullptr;
  void* walk = nullptr;  // AsyncGetCallTrace
  bool startup_pending = false;  // loaded at startup, VMInit not yet come
  uint64_t sessions = 0;
};
AgentProcess g_process;
std::mutex g_control;  // every start, stop, detach and VM death, one at a time

bool sameOrSubset(const jvmtiCapabilities& wanted, const jvmtiCapabilities& available) {
  unsigned char w[sizeof wanted];
  unsigned char a[sizeof available];
  std::memcpy(w, &wanted, sizeof w);
  std::memcpy(a, &available, sizeof a);
  for (size_t i = 0; i < sizeof w; ++i) {
    if ((w[i] & a[i]) != w[i]) return false;
  }
  return true;
}

// The capabilities a trace needs. `startup`: in the OnLoad phase, where the lock trace also
// gets early VMStart for the park's wrapper (native_bind.h), which only then means anything.
jvmtiCapabilities traceCapabilities(uint32_t trace, const Options& options, bool startup) {
  jvmtiCapabilities caps{};
  // exception=thrown: the capability alone changes how C2 compiles throws
  // (exception_trace.h), asked for only then; created (the default) wraps a native.
  if ((trace & kTraceException) && options.exceptions_thrown) caps.can_generate_exception_events = 1;
  if ((trace & kTraceException) && !options.exceptions_thrown) caps.can_generate_native_method_bind_events = 1;
  if (trace & kTraceAlloc) caps.can_generate_sampled_object_alloc_events = 1;
  if (trace & kTraceLive) {
    caps.can_tag_objects = 1;
    caps.can_generate_object_free_events = 1;
  }
  if (trace & kTraceLock) {
    caps.can_generate_monitor_events = 1;
    caps.can_get_monitor_info = 1;
    caps.can_generate_native_method_bind_events = 1;
    caps.can_get_bytecodes = 1;  // class_init_lock.h
    caps.can_get_constant_pool = 1;
    // Both only at startup in HotSpot 17 and 25: after an attach the trace runs without, its
    // monitor waits' owners unnamed (lock_owners.h gets no contended monitor).
    caps.can_get_current_contended_monitor = startup ? 1 : 0;
    caps.can_generate_early_vmstart = startup ? 1 : 0;
  }
  return caps;
}

void addTraceCapabilities(jvmtiCapabilities& into, const jvmtiCapabilities& more) {
  unsigned char a[sizeof into];
  unsigned char b[sizeof more];
  std::memcpy(a, &into, sizeof a);
  std::memcpy(b, &more, sizeof b);
  for (size_t i = 0; i < sizeof a; ++i) a[i] |= b[i];
  std::memcpy(&into, a, sizeof a);
}

jvmtiCapabilities baseCapabilities() {
  jvmtiCapabilities caps{};
  caps.can_generate_compiled_method_load_events = 1;
  caps.can_get_source_file_name = 1;
  caps.can_get_line_numbers = 1;
  caps.can_generate_garbage_collection_events = 1;
  return caps;
}

// Adds what `options` needs. At startup every capability can be had, so a refusal is an
// error. In the live phase HotSpot grants some only at startup (on JDK 17 and 25, as
// GetPotentialCapabilities says after an attach: can_generate_exception_events,
// can_get_current_contended_monitor, can_generate_early_vmstart): a trace that cannot do
// without one (exception=thrown) is taken out of `options`, named in `dropped`.
bool addCapabilities(jvmtiEnv* jvmti, Options& options, bool startup, std::string& dropped, std::string& error) {
  jvmtiCapabilities caps = baseCapabilities();
  // Thread.start0's wrapper, whatever the traces (thread_parents.h): start0 is bound while the
  // JVM starts, so the capability is asked for only then.
  if (startup) caps.can_generate_native_method_bind_events = 1;
  if (options.vthreads) requestVirtualThreadSupport(jvmti, caps);
  jvmtiCapabilities potential{};
  if (!startup && jvmti->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE) potential = {};
  for (const TraceName& trace : kTraceNames) {
    if (!(options.traces & trace.trace)) continue;
    const jvmtiCapabilities needed = traceCapabilities(trace.trace, options, startup);
    if (startup || sameOrSubset(needed, potential)) {
      addTraceCapabilities(caps, needed);
    } else {
      options.traces &= ~uint32_t{trace.trace};
      dropped += std::string(dropped.empty() ? "" : ", ") + trace.name;
    }
  }
  if (const jvmtiError code = jvmti->AddCapabilities(&caps); code != JVMTI_ERROR_NONE) {
    error = "stackscope: cannot get the JVMTI capabilities it needs (error " + std::to_string(code) + ")";
    return false;
  }
  return true;
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
  for (jobject local : {static_cast<jobject>(value), static_cast<jobject>(key), static_cast<jobject>(system)}) {
    if (local) jni->DeleteLocalRef(local);  // a live-phase caller has no callback frame to drop them
  }
  return version;
}

void createMethodIdsForLoadedClasses(jvmtiEnv* jvmti, JNIEnv* jni) {
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return;
  // One local reference per class arrives at once: make room for them.
  jni->EnsureLocalCapacity(count);
  for (jint i = 0; i < count; ++i) {
    jint methods_count = 0;
    jmethodID* methods = nullptr;  // arrays and unprepared classes just fail
    if (jvmti->GetClassMethods(classes[i], &methods_count, &methods) == JVMTI_ERROR_NONE)
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(methods));
    jni->DeleteLocalRef(classes[i]);
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

void writeRecordingInfo(Session& session, JNIEnv* jni, uint32_t sample_metrics) {
  format::RecordingInfo info;
  info.start_epoch_ns = session.start_epoch_ns;
  // The sampling mode and the traces that run: the kinds of events recorded.
  info.mode = eventList(session.options);
  info.interval_ns = session.options.interval_ns;
  info.status_interval_ns = session.options.status_interval_ns;
  info.pid = getpid();
  info.jvm = systemProperty(session.jvmti, "java.vm.name") + " " + javaVersion(jni);
  info.options = session.options_text;
  info.non_safepoint_debug = session.non_safepoint_debug;
  info.sample_metrics = sample_metrics;
  info.boot_id = native::currentBootId();  // for the front-end to name kernel frames
  session.writer.writeInfo(info);
}

// Parks can reach the lock trace once its fields are bound and Unsafe.park is wrapped
// (park_hook.h); if either fails, monitors are still traced and the recording says parks are not.
bool parkTraceReady(Session& session, JNIEnv* jni) {
  const bool bound = session.locks.init(jni);
  if (bound && parkHooked()) return true;
  const std::string warning = std::string("the lock trace does not see parks (java.util.concurrent locks): ") +
                              (bound ? "the agent could not wrap Unsafe.park (after an attach it needs libjvm's symbol Unsafe_Park)"
                                     : "this JVM lacks Thread.parkBlocker");
  std::fprintf(stderr, "stackscope: warning: %s\n", warning.c_str());
  session.writer.writeAgentWarning({0, warning});
  return false;
}

// The wrapped natives (native_bind.h) hand their calls to the traces from now on. Like the
// traces' JVMTI events, only once the running threads are known: a call before would have no
// thread. Throwable.fillInStackTrace(int) is bound when first called, usually after VMInit; the
// writer says at the end if it never was (exception_trace.h).
void handWrappedNativesToTraces(Session& session, bool parks) {
  if (parks) setParkTrace(&session.locks);
  if (createdExceptions(session.options)) setFillInStackTraceTrace(&session.exceptions);
  setThreadParents(&session.thread_parents);
}

// The collectors' names and the cause, in the PerfData block (gc_trace.h): it exists from
// VMInit on, not yet when the agent loads.
void bindGcCounters(GcTrace& trace) {
  VmStructs vm;
  if (vm.bind(lookupJvmSymbol)) trace.bind(perfMemoryOf(vm));
}

// Without debug information between safepoints, a sample in compiled code is placed at the
// nearest safepoint's method and bci: often an inlined callee's or caller's, not the code that
// ran. Enabling CompiledMethodLoad events does not turn it on for C2; the flag does. Set at
// load, so every compiled method carries it; after an attach, the methods compiled since.
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

// The session's start for %t in file=: local time, as users read it next to their files.
std::string localStartTime() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  char text[32] = "";
  if (localtime_r(&now, &tm)) std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &tm);
  return text;
}

// A new session up to its events (enabled, gate open); begin() does the rest once the VM
// is live. Null with `error` set when it cannot start; nothing is left behind then.
Session* createSession(const Options& asked, const std::string& text, bool startup, std::string& error) {
  jvmtiEnv* jvmti = g_process.jvmti;
  Options options = asked;
  std::string dropped;
  if (!addCapabilities(jvmti, options, startup, dropped, error)) return nullptr;
  auto* session = new Session(jvmti, options, text, !startup);
  if (!dropped.empty()) {
    session->dropped_traces = "not recorded: " + dropped +
                              " (the JVM grants what it needs only to an agent loaded at its start: -agentpath or "
                              "stackscope record)";
    std::fprintf(stderr, "stackscope: %s\n", session->dropped_traces.c_str());
  }
  const OpenedRecording file = openRecording(session->writer, options, getpid(), localStartTime());
  if (!file.ok) {
    error = file.error;
    delete session;  // nothing refers to it yet
    return nullptr;
  }
  session->file_path = file.path;
  if (!file.notice.empty()) std::fprintf(stderr, "%s\n", file.notice.c_str());
  if (std::string histogram_error; session->histogramOn() && !session->histogram.init(g_process.vm, histogram_error)) {
    error = "stackscope: " + histogram_error;
    delete session;
    return nullptr;
  }
  // Only samples can land between safepoints: the traces' stacks are taken at calls. A session
  // that samples nothing leaves compiled code as it is (a later sampling session turns it on).
  session->non_safepoint_debug =
      options.mode == SampleMode::None ? format::NonSafepointDebug::NotRecorded : turnOnNonSafepointDebug();
  const NativeThreads* by_tid = session->findsThreadsByTid() ? &session->native_threads : nullptr;
  initJavaApi({&session->meta, &session->annotations, &session->registry, session->start_ns,
               options.mode == SampleMode::Cpu, by_tid});
  setCallingThreadLookup(by_tid, &session->registry);
  setKernelCallChains(options.native && options.mode == SampleMode::Cpu);
  if (!installCaptureHandler({g_process.walk, &session->ring, &session->lost, session->start_ns,
                              options.mode == SampleMode::Wall, &session->code_regions, by_tid, options.native,
                              g_process.vm})) {
    error = "stackscope: cannot install the SIGPROF handler";
    session->histogram.dispose();
    delete session;
    return nullptr;
  }
  if (replacedForeignSigprofHandler()) std::fprintf(stderr, "stackscope: warning: %s\n", foreignHandlerWarning().c_str());
  g_session = session;
  openSessionGate();
  if (const jvmtiError code = enableSessionEvents(jvmti, options); code != JVMTI_ERROR_NONE) {
    error = "stackscope: cannot enable JVMTI events (error " + std::to_string(code) + ")";
    disableSessionEvents(jvmti);
    const bool quiet = closeSessionGate(kStopTimeoutNs);
    g_session = nullptr;
    session->histogram.dispose();
    if (quiet) delete session;  // no thread, no capture ran on its data; a callback may have
    return nullptr;
  }
  // JDK 21+: samples of carriers become their virtual threads', and the lock trace follows
  // their waits. Without it (older JVMs, vthreads=no) a carrier is sampled as itself.
  if (session->options.vthreads) {
    enableVirtualThreadEvents(jvmti, &session->tracker,
                              (session->options.traces & kTraceLock) ? &session->virtual_waits : nullptr);
  }
  return session;
}

// The live part of a start: at VMInit (main_thread: the main thread, registered at once), or
// at once after an attach (main_thread null: every running thread is taken as found).
void begin(Session& session, JNIEnv* jni, jthread main_thread) {
  jvmtiEnv* jvmti = session.jvmti;
  session.tracker.init(jni);
  session.status.init(jvmti, jni, monotonicNs(), isAgentThread);
  createMethodIdsForLoadedClasses(jvmti, jni);
  // Regions generated before the event was enabled are announced again; known ones are ignored.
  jvmti->GenerateEvents(JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  const uint32_t sample_metrics = bindVmOnce(session.options, jvmti, jni);
  if (session.options.traces & kTraceGc) bindGcCounters(session.gc_trace);
  writeRecordingInfo(session, jni, sample_metrics);  // before the writer thread exists: no lock needed
  if (!session.dropped_traces.empty()) session.writer.writeAgentWarning({0, session.dropped_traces});
  // After an attach the natives the traces wrap were bound long ago: bind them again to the
  // wrappers (an earlier session of this agent may have done so already).
  if (!main_thread) {
    wrapBoundNatives(jni, {(session.options.traces & kTraceLock) != 0, createdExceptions(session.options), true});
  }
  const bool parks = (session.options.traces & kTraceLock) && parkTraceReady(session, jni);
  if (replacedForeignSigprofHandler()) session.writer.writeAgentWarning({0, foreignHandlerWarning()});
  session.recording = true;
  session.serial = ++g_process.sessions;
  if (!session.writer_thread.start(jni)) {
    std::fprintf(stderr, "stackscope: cannot start the writer thread; running unprofiled\n");
    session.writer.finish(0);  // an empty but well-formed recording
    session.recording = false;
    return;
  }
  // VMInit runs on the main thread; its ThreadStart event, if the VM sends one at all, only
  // comes later, and samples are due from now on.
  if (main_thread) session.tracker.onStart(jni, main_thread);
  if (session.options.mode == SampleMode::Wall && !session.wall.start(jni)) {
    std::fprintf(stderr, "stackscope: cannot start the wall-clock sampler thread\n");
  }
  if (session.histogramOn() && !session.histogram.start(jni)) {
    std::fprintf(stderr, "stackscope: cannot start the class histogram thread\n");
  }
  // After the agent's threads started, so they can be told apart; after main, which is then
  // found registered already.
  if (session.live && session.options.mode == SampleMode::Cpu) {
    session.tracker.adoptRunning(jni, isAgentThread, session.native_threads);
  } else {
    session.tracker.registerRunning(jni, isAgentThread);
  }
  handWrappedNativesToTraces(session, parks);
  if (const jvmtiError code = enableTraceEvents(jvmti, session.options); code != JVMTI_ERROR_NONE) {
    std::fprintf(stderr, "stackscope: cannot enable the traces' JVMTI events (error %d); they record nothing\n",
                 static_cast<int>(code));
  }
  setCaptureActive(true);
  // Active before the scan: a class prepared meanwhile is bound by its own event instead.
  setJavaApiActive(true);
  applyRememberedAnnotations();
  bindLoadedJavaApi(jvmti, jni);
}

// Stops sampling and the traces' producers, the agent's threads, and finishes the file.
void finishRecording(Session& session, JNIEnv* jni) {
  if (!session.recording) return;
  session.recording = false;
  setJavaApiActive(false);
  bool stopped = true;
  if (session.options.mode == SampleMode::Wall) stopped = session.wall.stop(kStopTimeoutNs);
  session.registry.close();  // no more CPU timers, no more threads
  session.native_threads.close();
  setCaptureActive(false);
  if (session.histogramOn()) session.histogram.finish(jni, kStopTimeoutNs);  // and the last one
  session.writer_thread.finish(jni, kStopTimeoutNs);
  session.threads_stopped = stopped && !session.writer_thread.agentThread().running() &&
                            !session.histogram.agentThread().running();
  if (const uint64_t overflowed = session.annotations.overflowCount()) {
    std::fprintf(stderr,
                 "stackscope: %llu annotations beyond the first %u distinct ones were recorded as '%s'\n",
                 static_cast<unsigned long long>(overflowed), AnnotationTable::kDefaultMaxAnnotations,
                 AnnotationTable::kOverflowValue);
  }
}

// After finishRecording: every event off, then, once no callback, native or signal handler
// can reach the session, its memory freed. False (the memory kept) if one stayed too long.
bool endSession(Session* session, JNIEnv* jni) {
  finishRecording(*session, jni);
  disableSessionEvents(session->jvmti);
  disableVirtualThreadEvents(session->jvmti);
  setParkTrace(nullptr);
  setFillInStackTraceTrace(nullptr);
  setThreadParents(nullptr);
  forgetThreadSlots();
  const bool quiet = stopCapture(kStopTimeoutNs) && closeSessionGate(kStopTimeoutNs);
  g_session = nullptr;
  if (!quiet || !session->threads_stopped) {
    std::fprintf(stderr, "stackscope: an agent thread or callback did not stop in time; its memory is kept\n");
    return false;
  }
  session->tracker.dropAll(jni);
  for (AgentThread* thread : {&session->writer_thread.agentThread(), &session->wall.agentThread(),
                              &session->histogram.agentThread()}) {
    thread->release(jni, kStopTimeoutNs);
  }
  session->histogram.dispose();
  delete session;
  return true;
}

ControlResult failure(std::string error, int code = kAttachFailed) { return {false, std::move(error), code}; }

// Without a session, a listening control server still needs VM death (its files removed) and,
// before the VM runs, VMInit (its thread started). With the control mutex held.
void watchVmForControl() {
  if (!g_session && controlListening()) enableVmEvents(g_process.jvmti);
}

std::string jvmDescription(JNIEnv* jni) {
  return systemProperty(g_process.jvmti, "java.vm.name") + " " + javaVersion(jni);
}

// startSession with the control mutex held.
ControlResult startLocked(JNIEnv* jni, std::string_view text) {
  if ((g_session && g_session->recording) || g_process.startup_pending)
    return failure("stackscope: a recording is already running", kAttachAlreadyRecording);
  const ParseResult parsed = parseOptions(text, getpid());
  if (!parsed.ok) return failure(parsed.error);
  if (parsed.options.children != Children::Keep)
    return failure("stackscope: children= applies only to an agent loaded at JVM start");
  // A stopped session the control server kept goes now (its control= was handled at its load).
  if (g_session && !endSession(g_session, jni))
    return failure("stackscope: the previous recording's memory could not be freed; not starting another");
  std::string error;
  Session* session = createSession(parsed.options, std::string(text), false, error);
  if (!session) {
    watchVmForControl();
    return failure(error);
  }
  begin(*session, jni, nullptr);
  return {true, {}, kAttachDone};
}

void relinquishAll(jvmtiEnv* jvmti) {
  jvmtiCapabilities held{};
  if (jvmti->GetCapabilities(&held) == JVMTI_ERROR_NONE) jvmti->RelinquishCapabilities(&held);
}

}  // namespace

ControlResult loadAtStartup(JavaVM* vm, const Options& options, const std::string& text) {
  std::lock_guard<std::mutex> lock(g_control);
  g_process.vm = vm;
  g_process.walk = findAsyncGetCallTrace();
  if (!g_process.walk) return failure("stackscope: this JVM has no AsyncGetCallTrace");
  if (vm->GetEnv(reinterpret_cast<void**>(&g_process.jvmti), JVMTI_VERSION_1_2) != JNI_OK || !g_process.jvmti)
    return failure("stackscope: cannot get a JVMTI environment");
  std::string error;
  // The recording goes on without the server: a busy port must not cost the profile.
  if (!openControl(options, error)) {
    std::fprintf(stderr, "stackscope: no control server: %s\n", error.c_str());
    if (options.strict) return failure("stackscope: no control server: " + error);
  }
  // control= alone: no recording until a start over the server, which VMInit starts.
  if (controlOnly(text)) {
    watchVmForControl();
    return {true, {}, kAttachDone};
  }
  if (!createSession(options, text, true, error)) return failure(error);
  g_process.startup_pending = true;
  return {true, {}, kAttachDone};
}

ControlResult attachAndStart(JavaVM* vm, JNIEnv* jni, const std::string& text) {
  {
    std::lock_guard<std::mutex> lock(g_control);
    if (!g_process.jvmti) {
      g_process.vm = vm;
      g_process.walk = findAsyncGetCallTrace();
      if (!g_process.walk) return failure("stackscope: this JVM has no AsyncGetCallTrace");
      if (vm->GetEnv(reinterpret_cast<void**>(&g_process.jvmti), JVMTI_VERSION_1_2) != JNI_OK || !g_process.jvmti)
        return failure("stackscope: cannot get a JVMTI environment");
    }
    // control= opens the server now (or keeps the one that listens); alone, it starts nothing.
    const ParseResult parsed = parseOptions(text, getpid());
    if (parsed.ok && parsed.options.has_control) {
      std::string error;
      if (!openControl(parsed.options, error)) return failure("stackscope: no control server: " + error);
      startControl(vm, g_process.jvmti, jni, jvmDescription(jni));
      watchVmForControl();
      if (controlOnly(text)) return {true, {}, kAttachDone};
    }
  }
  return startSession(jni, text);
}

void beginStartupSession(JNIEnv* jni, jthread main_thread) {
  std::lock_guard<std::mutex> lock(g_control);
  if (g_process.startup_pending && g_session) {
    g_process.startup_pending = false;
    begin(*g_session, jni, main_thread);
  }
  startControl(g_process.vm, g_process.jvmti, jni, jvmDescription(jni));
}

void endAtVmDeath(JNIEnv* jni) {
  {
    std::lock_guard<std::mutex> lock(g_control);
    // Nothing is freed: a signal or a late callback may still come while the VM goes down,
    // and the process is about to exit anyway.
    if (g_session) finishRecording(*g_session, jni);
  }
  // After the recording ended: streaming clients get its last bytes.
  stopControl(kStopTimeoutNs);
}

void withCurrentSession(const std::function<void(Session*)>& use) {
  std::lock_guard<std::mutex> lock(g_control);
  use(g_session);
}

ControlResult startSession(JNIEnv* jni, std::string_view options) {
  std::lock_guard<std::mutex> lock(g_control);
  if (!g_process.jvmti) return failure("stackscope: the agent is not loaded");
  return startLocked(jni, options);
}

ControlResult stopSession(JNIEnv* jni) {
  std::lock_guard<std::mutex> lock(g_control);
  if (!g_session || !g_session->recording || g_process.startup_pending)
    return failure("stackscope: no recording is running", kAttachNotRecording);
  // The control server's figures and streams read it on: finished, kept (session.h).
  if (controlListening()) {
    finishRecording(*g_session, jni);
    return {true, {}, kAttachDone};
  }
  if (!endSession(g_session, jni)) return failure("stackscope: the recording stopped, but the agent kept its memory");
  return {true, {}, kAttachDone};
}

namespace {
// Two detaches (a control one and an attach's load), or a detach and a close, must not stop
// the server together.
std::mutex g_one_detach;
}  // namespace

void closeControlServer() {
  std::lock_guard<std::mutex> one_at_a_time(g_one_detach);
  closeControl(kStopTimeoutNs);  // without the control mutex: the server's commands take it
}

ControlResult detachAgent(JNIEnv* jni) {
  std::lock_guard<std::mutex> one_at_a_time(g_one_detach);
  {
    std::lock_guard<std::mutex> lock(g_control);
    if (!g_process.jvmti) return failure("stackscope: the agent is not loaded");
    // First, so that streaming clients get the recording's end before the server stops.
    if (g_session) finishRecording(*g_session, jni);
  }
  stopControl(kStopTimeoutNs);  // without the mutex: its commands take it
  std::lock_guard<std::mutex> lock(g_control);
  if (g_session && !endSession(g_session, jni))
    return failure("stackscope: the recording stopped, but the agent kept its memory");
  g_process.startup_pending = false;
  disableSessionEvents(g_process.jvmti);
  relinquishAll(g_process.jvmti);
  // No callback can ask about the server's thread any more: wait it out of the JVM.
  releaseControl(jni, kStopTimeoutNs);
  return {true, {}, kAttachDone};
}

}  // namespace stackscope::agent

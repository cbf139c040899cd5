// A recording session: the traces, threads, buffers and file of one recording, from its start
// to its stop. The agent loaded at JVM start (Agent_OnLoad) creates the first one before the
// VM runs and begins it at VMInit; an agent attached to a running JVM, or asked by its
// control (session_control.h), creates and begins one at once, in the live phase. Stopping
// one finishes its file, turns every event off and, once nothing can reach its memory any
// more (session_gate.h, stopCapture), frees it; a later session starts afresh.
//
// What outlives sessions: the JVMTI environment, the SIGPROF handler (inert between
// sessions) and the VM structures bound once (compiled code, frame anchors, allocation
// counters: stack_capture.h, thread_metrics.h), which describe the JVM, not a recording.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <functional>
#include <string>

#include "agent/alloc_trace.h"
#include "agent/annotation_table.h"
#include "agent/class_histogram.h"
#include "agent/clocks.h"
#include "agent/exception_trace.h"
#include "agent/gc_trace.h"
#include "agent/lock_owners.h"
#include "agent/lock_trace.h"
#include "agent/lost_counters.h"
#include "agent/meta_events.h"
#include "agent/native_threads.h"
#include "agent/options.h"
#include "agent/sample_slot.h"
#include "agent/session_control.h"
#include "agent/status.h"
#include "agent/thread_parents.h"
#include "agent/thread_registry.h"
#include "agent/thread_tracker.h"
#include "agent/virtual_waits.h"
#include "agent/wall_sampler.h"
#include "agent/writer_thread.h"
#include "format/writer.h"

namespace stackscope::agent {

// Big enough for ~50k samples/s between drains (writer_thread.cpp); 8 MB of slots.
inline constexpr size_t kRingSlots = 1024;
// With no sampling (traces alone) nothing fills the ring: a few slots, not 8 MB whose pages
// the ring's construction touches (1 024 page faults, about 2.7 ms of the JVM's start).
inline constexpr size_t kIdleRingSlots = 4;

// The writer, wall sampler and histogram threads, and the control server's thread
// (setControlThreadCheck), are never sampled: the profile is the application's.
bool isAgentThread(JNIEnv* jni, jthread thread);

// The exception trace's default source, exception creation (exception_trace.h).
inline bool createdExceptions(const Options& options) {
  return (options.traces & kTraceException) && !options.exceptions_thrown;
}

struct Session {
  // `options`: the traces the JVM cannot run already taken out (session.cpp). `live`: begun
  // in the live phase (an attach, or a start after an earlier session), not at VMInit.
  Session(jvmtiEnv* env, const Options& opts, std::string text, bool live_phase)
      : jvmti(env),
        options(opts),
        options_text(std::move(text)),
        live(live_phase),
        start_ns(monotonicNs()),
        start_epoch_ns(realtimeNs()),
        ring(opts.mode == SampleMode::None ? kIdleRingSlots : kRingSlots),
        annotations(options.filter),
        meta(&writer_wake),
        registry(meta),
        status(gc, lost, options),
        tracker(env, registry, meta, lost, options, annotations, start_ns),
        wall(env, registry, tracker, ring, lost, gc, options.interval_ns, start_ns),
        native_threads(registry, meta, annotations, options.interval_ns, start_ns, scansJvmThreads()),
        gc_trace(start_ns),
        exceptions(env, start_ns, createdExceptions(options), isAgentThread, &writer_wake),
        allocs(env, start_ns, options, &writer_wake),
        locks(env, registry, findsThreadsByTid() ? &native_threads : nullptr, start_ns, options.lock_threshold_ns,
              &writer_wake),
        lock_owners(env, registry, locks),
        virtual_waits(env, locks, tracker.virtualEpoch()),
        histogram(start_ns, options.histo_interval_ns, options.histo_gcs),
        thread_parents(env, start_ns, &writer_wake),
        writer_thread({env, &writer, &ring, &lost, &meta, &registry, &status, &annotations, &options, &code_regions,
                       findsThreadsByTid() ? &native_threads : nullptr,
                       (options.traces & kTraceGc) ? &gc_trace : nullptr,
                       (options.traces & kTraceException) ? &exceptions : nullptr,
                       (options.traces & kTraceAlloc) ? &allocs : nullptr,
                       (options.traces & kTraceLock) ? &locks : nullptr,
                       (options.traces & kTraceLock) ? &lock_owners : nullptr,
                       &histogram, &thread_parents, &writer_wake, start_ns, &file_path}) {}

  bool histogramOn() const { return options.histo_interval_ns > 0 || options.histo_gcs > 0; }
  // Mixed mode in cpu mode samples the JVM's own threads. They carry no annotation, so an
  // annotation filter, at the start or set later, leaves them out (their timers disarmed)
  // while it is in force: the scan goes on, so that clearing the filter brings them back.
  bool scansJvmThreads() const { return options.native && options.mode == SampleMode::Cpu; }
  // The signal handler finds a thread by tid in native_threads: the JVM's own threads, and
  // after an attach in cpu mode the Java threads that were already running (adopted).
  bool findsThreadsByTid() const { return scansJvmThreads() || (live && options.mode == SampleMode::Cpu); }

  jvmtiEnv* jvmti;
  const Options options;
  const std::string options_text;
  const bool live;
  const int64_t start_ns;        // monotonic time 0
  const int64_t start_epoch_ns;  // the same instant on the wall clock
  std::string file_path;         // the recording being written
  std::string dropped_traces;    // what the JVM could not run, told in the recording too
  format::RecordingWriter writer;
  CodeRegions code_regions;  // before the writer thread, which names stub frames with it
  SampleRing ring;
  AnnotationTable annotations;  // the annotation filter in force (options.filter at first)
  LostCounters lost;
  WriterWake writer_wake;  // before the queues that wake the writer thread
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
  LockOwners lock_owners;    // the writer thread's, for the lock trace
  VirtualWaits virtual_waits;  // the lock trace's waits of virtual threads
  ClassHistogram histogram;  // its thread runs only with histo=; the histo command uses it in any session
  ThreadParents thread_parents;  // whatever the traces: which thread started which
  WriterThread writer_thread;
  bool recording = false;          // begun and not yet ended (under the control mutex)
  uint64_t serial = 0;             // which session of the process (1, 2, ...), once begun
  bool threads_stopped = true;     // every agent thread of the session returned in time
  format::NonSafepointDebug non_safepoint_debug = format::NonSafepointDebug::Off;
};

// The writer, wall sampler and histogram threads, and the control server's thread
// (setControlThreadCheck), are never sampled: the profile is the application's.
bool isAgentThread(JNIEnv* jni, jthread thread);

// The current session (null when none) for the JVMTI callbacks (session_events.cpp): read
// only under a SessionUse.
extern Session* g_session;

// Agent_OnLoad: the process's JVMTI environment, the capabilities `options` need (some are
// granted only now) and the session that VMInit begins (none with control= alone: VMInit
// then only starts the control server). The error line when it fails.
ControlResult loadAtStartup(JavaVM* vm, const Options& options, const std::string& text);
// Agent_OnAttach: the environment if this is the agent's first attach; with control= the
// control server (alone, nothing more); otherwise startSession.
ControlResult attachAndStart(JavaVM* vm, JNIEnv* jni, const std::string& text);

// For the control server's handler (agent_control.h): runs `use` on the current session
// (null: none) with the control mutex held, so that no start, stop or detach frees it
// meanwhile. While the control server listens, a stopped session is kept (finished: its
// figures and the end of its stream stay readable) until the next start or the detach.
void withCurrentSession(const std::function<void(Session*)>& use);

// The events' side (session_events.cpp): VMInit begins the startup session, VMDeath ends
// whichever runs (without freeing: the process is going).
void beginStartupSession(JNIEnv* jni, jthread main_thread);
void endAtVmDeath(JNIEnv* jni);

// Sets the callbacks and enables the events `session` needs (session_events.cpp); turns
// them all off again.
jvmtiError enableSessionEvents(jvmtiEnv* jvmti, const Options& options);
// The traces' own events (exceptions thrown, sampled allocations, object frees, monitors),
// once the threads running are registered or adopted (begin in session.cpp): an event of
// a thread not known yet would have no thread (calling_thread.h).
jvmtiError enableTraceEvents(jvmtiEnv* jvmti, const Options& options);
void disableSessionEvents(jvmtiEnv* jvmti);
// Only VMInit and VMDeath: an agent without a session that has a control server to start and end.
void enableVmEvents(jvmtiEnv* jvmti);

}  // namespace stackscope::agent

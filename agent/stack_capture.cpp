// SIGNAL HANDLER RULES — everything reachable from onSigprof runs inside a signal handler
// that may interrupt any code of the thread, including malloc, a lock holder or the JVM:
//   * async-signal-safe calls only (clock_gettime, memmove, AsyncGetCallTrace, which is made
//     for it, CodeRegions::find, readOwnCounters);
//     it never blocks: a full ring is counted as lost, not waited on;
//   * no allocation, no locks (only lock-free atomics), no C++ exceptions, no JVMTI or JNI;
//   * the only memory it reads besides its own data is the interrupted thread's stack, and
//     only words that stub_unwind.h's usedStackWord allows (a fault here kills the JVM), and
//     in mixed mode the loaded modules' unwinding tables, each read checked against the
//     module's segment that holds them (native/cfi_rules.h, native/unwind_modules.h);
//   * errno is saved and restored;
//   * a signal can still arrive after the recording has ended: the handler counts itself in
//     g_in_handler before it checks the global "active" flag, and a session frees the data it
//     touches (ring, counters, regions, slots) only after stopCapture saw no handler left.
#include "agent/stack_capture.h"

#include <dlfcn.h>
#include <jni.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "agent/clocks.h"
#include "agent/cpu_intervals.h"
#include "agent/cpu_sampler.h"
#include "agent/java_stack_walk.h"
#include "agent/mixed_mode_frames.h"
#include "agent/session_gate.h"
#include "agent/thread_metrics.h"
#include "agent/thread_registry.h"
#include "agent/vm_pauses.h"
#include "agent/wall_pending.h"
#include "native/unwind_modules.h"

namespace stackscope::agent {

namespace {

CaptureConfig g_config;
std::atomic<bool> g_active{false};
// Handlers running now: a session that ends waits for none to be left before its ring,
// counters and regions are freed (session_gate.h has the pattern).
std::atomic<int64_t> g_in_handler{0};

// The JNIEnv AsyncGetCallTrace needs: a Java thread's own, or for a thread the agent did not
// register (native_threads.h) the VM's answer, null when it is no JavaThread. jni_GetEnv
// only reads the VM's thread-local current thread.
JNIEnv* envOf(const ThreadSlot& thread) {
  if (thread.env || !g_config.vm) return thread.env;
  void* env = nullptr;
  return g_config.vm->GetEnv(&env, JNI_VERSION_1_6) == JNI_OK ? static_cast<JNIEnv*>(env) : nullptr;
}

// Walks the interrupted thread's stack into `frames`: native frames first (mixed mode), then
// the Java frames. Returns the frame count, or AsyncGetCallTrace's error when there is no
// frame at all.
jint walk(ThreadSlot& thread, RawFrame* frames, void* ucontext) {
  jint native = 0;
#if defined(__x86_64__)
  // A thread adopted while it ran (native_threads.h) has no known stack, and every walk that
  // reads it (a stub's caller, native frames) waits for the next scan to find the mapping
  // holding this sp. Left on every sample, wherever the pc: a thread that only runs Java code
  // never blocks to tell its sp otherwise, and after an attach lost 80 % of its samples in an
  // intrinsic stub (Math.sin) for want of the stub retry.
  if (!thread.stack_ready.load(std::memory_order_acquire)) {
    thread.native_sp.store(registersOf(*static_cast<const ucontext_t*>(ucontext)).sp, std::memory_order_relaxed);
  }
  if (g_config.native_frames) {
    native = kernelFrames(thread, frames);
    native += walkNative(thread, frames + native, kMaxFrames - native, ucontext);
  }
#endif
  JNIEnv* env = envOf(thread);
  const jint java = env ? walkJava(thread, env, frames + native, kMaxFrames - native, ucontext) : kNotInJava;
#if defined(__x86_64__)
  if (java > 0 && g_config.native_frames) return native + withNativeFramesAround(thread, env, frames, native, java, ucontext);
#endif
  if (java > 0) return native + java;
  // No Java frame to add: the native ones alone say where the CPU went.
  return native > 0 ? native : java;
}

// Whether a walk with this result still makes a sample. In wall mode a thread outside Java
// (a JVM thread, native code with no Java frame to walk) exists and has a state: its sample
// has an empty stack. In cpu mode the CPU time spent there belongs to no Java method.
bool sampleTaken(jint num_frames) {
  return num_frames > 0 || (g_config.wall && (num_frames == kNoJavaFrame || num_frames == kNotInJava));
}

// wall mode: a thread signalled while a GC runs, which the walk refuses: its time is the
// GC's, at the stack captured before (as the sampler's GC ticks have it, wall_sampler.h).
// Fills the claimed slot with that one repeat, in the thread's own state if the GC does not
// stop it (native code, say).
void fillGcRepeat(SampleSlot& slot, const ThreadSlot& thread, uint8_t state, uint32_t weight, int64_t time_ns) {
  slot.time_ns = time_ns;
  slot.kind = SlotKind::Repeat;
  slot.count = 1;
  slot.repeats[0] = {thread.id, thread.annotation.load(std::memory_order_relaxed),
                     stoppedByPause(state) ? static_cast<uint8_t>(format::ThreadState::Gc) : state,
                     static_cast<uint16_t>(std::min<uint32_t>(weight, UINT16_MAX))};
}

// Walks the stack of the interrupted thread into a claimed slot and queues it; otherwise
// counts the reason, once per tick the sample stands for.
void capture(ThreadSlot& thread, uint8_t state, void* ucontext) {
  const int64_t time_ns = monotonicNs() - g_config.start_ns;
  // A carrier running a virtual thread: the stack walked is the virtual thread's, and so is
  // the sample (virtual_threads.h). One that mounted after the sampler looked is running.
  const uint32_t vthread = thread.mounted_vthread.load(std::memory_order_acquire);
  if (vthread != 0 && g_config.wall && thread.wall_vthread.load(std::memory_order_relaxed) != vthread) {
    state = static_cast<uint8_t>(format::ThreadState::Running);
  }
  // cpu mode: the CPU time the thread used since its last sample, whatever signals the
  // kernel let through; a signal that stands for none is no sample (cpu_intervals.h).
  uint32_t weight = 1;
  if (!g_config.wall) {
    weight = takeOwedIntervals(thread.cpu_sampled, currentThreadCpuTimeNs(), thread.timer_interval_ns);
    if (weight == 0) return;
  }
  const SampleRing::Claim claim = g_config.ring->tryClaim();
  const jint num_frames = claim ? walk(thread, claim.slot->frames, ucontext) : 0;
  const bool taken = claim && sampleTaken(num_frames);
  if (g_config.wall) {
    if (taken) {
      // So the sampler can tell whether the thread ran since (wall_sampler.cpp); only after
      // a good capture: after a failed one the thread must be signalled again.
      thread.cpu_at_capture.store(currentThreadCpuTimeNs(), std::memory_order_relaxed);
      // A repeat the sampler queues once it sees this is claimed after this slot, so the
      // writer reads this stack first. A virtual thread's stack is not the carrier's: the
      // carrier has none to repeat until it is captured again on its own.
      thread.has_stack.store(vthread == 0, std::memory_order_release);
    }
    // Last: until then the sampler adds its ticks to this capture (wall_pending.h).
    weight = takePendingWeight(thread.wall_pending);
  }
  if (!claim) {
    g_config.lost->add(format::LostReason::BufferFull, weight);
    return;
  }
  if (g_config.wall && num_frames == kGcActive && vthread == 0 && thread.has_stack.load(std::memory_order_acquire)) {
    fillGcRepeat(*claim.slot, thread, state, weight, time_ns);
    g_config.ring->publish(claim);
    return;
  }
  SampleSlot& slot = *claim.slot;
  slot.time_ns = time_ns;
  slot.thread = vthread != 0 ? vthread : thread.id;
  slot.carrier = vthread != 0 ? thread.id : 0;
  slot.annotation = thread.annotation.load(std::memory_order_relaxed);
  slot.state = state;
  slot.weight = weight;
  slot.kind = taken ? SlotKind::Stack : SlotKind::Skip;
  slot.count = taken ? static_cast<uint16_t>(std::max<jint>(num_frames, 0)) : 0;
  // A sample not taken leaves its thread's consumption to the next one that is.
  const MetricDeltas deltas = taken ? takeDeltas(thread.metric_base, readOwnCounters(thread.env)) : MetricDeltas{};
  slot.cpu_us = deltas.cpu_us;
  slot.alloc_bytes = deltas.alloc_bytes;
  g_config.ring->publish(claim);  // a claimed slot must be published, even a failed one
  if (!taken) g_config.lost->add(lostReasonForWalkError(num_frames), weight);
}

void handleSample(siginfo_t* info, void* ucontext) {
  // A POSIX CPU timer that expired again before its signal was delivered (si_overrun) lost
  // no tick: the sample's weight counts the thread's CPU time since its last one.
  ThreadSlot* thread = currentThreadSlot();
  if (!g_config.wall && g_config.native_threads) {
    // Mixed mode: a thread's SIGPROF counts only from its own timer. A Java thread that was
    // still sampled as a native one (registered since, until the next scan retires that
    // timer) would otherwise count its CPU twice.
    if (!thread) thread = g_config.native_threads->find(static_cast<pid_t>(syscall(SYS_gettid)));
    if (thread && !signalFromTimerOf(*thread, info)) return;
  }
  if (!thread) {
    g_config.lost->add(format::LostReason::ThreadUnknown);
    return;
  }
  // wall mode: a SIGPROF the sampler did not send (nothing pending) is due no sample.
  // Acquire: the sampler's store that set it pending published wall_state.
  if (g_config.wall && thread->wall_pending.load(std::memory_order_acquire) == 0) return;
  // The annotation filter left this thread out after the signal was sent (its timer is
  // disarmed and the wall sampler skips it, so this is rare): nothing was due, nothing lost.
  if (thread->excluded.load(std::memory_order_relaxed)) {
    if (g_config.wall) takePendingWeight(thread->wall_pending);
    return;
  }
  const uint8_t state = g_config.wall ? thread->wall_state.load(std::memory_order_relaxed)
                                      : static_cast<uint8_t>(format::ThreadState::Running);
  capture(*thread, state, ucontext);
}

void onSigprof(int, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  g_in_handler.fetch_add(1);
  if (g_active.load()) handleSample(info, ucontext);
  g_in_handler.fetch_sub(1);
  errno = saved_errno;
}

}  // namespace

void* findAsyncGetCallTrace() { return dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"); }

namespace {
// Whether installCaptureHandler found SIGPROF handled by someone else (set once, at load).
bool g_replaced_foreign_handler = false;
}  // namespace

bool installCaptureHandler(const CaptureConfig& config) {
  // The loaded modules' unwinding tables, before any handler walks by them (the writer
  // thread reads them again as libraries are loaded: refreshUnwindModules).
  if (config.native_frames) native::refreshLoadedUnwindModules();
  g_config = config;
  bindJavaStackWalk(config.async_get_call_trace, config.code_regions);
  struct sigaction action{};
  action.sa_sigaction = onSigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  struct sigaction previous{};
  if (sigaction(SIGPROF, &action, &previous) != 0) return false;
  // Another profiler or a native library had SIGPROF: it loses its signals from now on, and
  // the user must hear of it (sampling_health.h puts it in the recording).
  g_replaced_foreign_handler = previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
                               !((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction == onSigprof);
  return true;
}

bool replacedForeignSigprofHandler() { return g_replaced_foreign_handler; }

bool captureHandlerStillInstalled() {
  struct sigaction current{};
  return sigaction(SIGPROF, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == onSigprof;
}

void setCaptureActive(bool active) { g_active.store(active); }

bool stopCapture(int64_t timeout_ns) {
  g_active.store(false);
  return waitForNoUsers(g_in_handler, timeout_ns);
}
bool captureActive() { return g_active.load(std::memory_order_acquire); }

}  // namespace stackscope::agent

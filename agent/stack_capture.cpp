// SIGNAL HANDLER RULES — everything reachable from onSigprof runs inside a signal handler
// that may interrupt any code of the thread, including malloc, a lock holder or the JVM:
//   * async-signal-safe calls only (clock_gettime, AsyncGetCallTrace, which is made for it);
//     it never blocks: a full ring is counted as lost, not waited on;
//   * no allocation, no locks (only lock-free atomics), no C++ exceptions, no JVMTI or JNI;
//   * errno is saved and restored;
//   * the data it touches lives for the whole process (never freed), because a signal can
//     still arrive after the recording has ended; it checks the global "active" flag.
#include "agent/stack_capture.h"

#include <dlfcn.h>
#include <jni.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <cstddef>

#include "agent/clocks.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

namespace {

// AsyncGetCallTrace is exported by HotSpot but declared in no header.
struct ASGCT_CallFrame {
  jint lineno;  // bci for Java frames, negative for native ones
  jmethodID method_id;
};
struct ASGCT_CallTrace {
  JNIEnv* env;
  jint num_frames;  // > 0 frames, <= 0 an error code
  ASGCT_CallFrame* frames;
};
using AsyncGetCallTraceFn = void (*)(ASGCT_CallTrace* trace, jint depth, void* ucontext);

// The walk writes straight into a ring slot's RawFrame array.
static_assert(sizeof(ASGCT_CallFrame) == sizeof(RawFrame));
static_assert(offsetof(ASGCT_CallFrame, lineno) == offsetof(RawFrame, bci));
static_assert(offsetof(ASGCT_CallFrame, method_id) == offsetof(RawFrame, method));

CaptureConfig g_config;
AsyncGetCallTraceFn g_walk = nullptr;
std::atomic<bool> g_active{false};

// Walks the stack of the interrupted thread into a claimed slot. Returns true if a stack was
// queued; otherwise the reason was counted.
bool capture(ThreadSlot& thread, uint8_t state, void* ucontext) {
  const int64_t time_ns = monotonicNs() - g_config.start_ns;
  const SampleRing::Claim claim = g_config.ring->tryClaim();
  if (!claim) {
    g_config.lost->add(format::LostReason::BufferFull);
    return false;
  }
  SampleSlot& slot = *claim.slot;
  ASGCT_CallTrace trace{thread.env, 0, reinterpret_cast<ASGCT_CallFrame*>(slot.frames)};
  g_walk(&trace, kMaxFrames, ucontext);
  slot.time_ns = time_ns;
  slot.thread = thread.id;
  slot.annotation = thread.annotation.load(std::memory_order_relaxed);
  slot.state = state;
  const bool ok = trace.num_frames > 0;
  slot.kind = ok ? SlotKind::Stack : SlotKind::Skip;
  slot.count = ok ? static_cast<uint16_t>(trace.num_frames) : 0;
  g_config.ring->publish(claim);  // a claimed slot must be published, even a failed one
  if (!ok) g_config.lost->add(lostReasonForWalkError(trace.num_frames));
  return ok;
}

void handleSample(siginfo_t* info, void* ucontext) {
  // A POSIX CPU timer that expired again before its signal was delivered: those ticks are
  // lost. (si_overrun is what timer_getoverrun() would return for this delivery; the
  // perf_event driver's signals carry POLL_IN instead and are not tick-bound.)
  if (!g_config.wall && info->si_code == SI_TIMER && info->si_overrun > 0) {
    g_config.lost->add(format::LostReason::TimerOverrun, static_cast<uint64_t>(info->si_overrun));
  }
  ThreadSlot* thread = currentThreadSlot();
  if (!thread) {
    g_config.lost->add(format::LostReason::ThreadUnknown);
    return;
  }
  // The annotation filter left this thread out after the signal was sent (its timer is
  // disarmed and the wall sampler skips it, so this is rare): nothing was due, nothing lost.
  if (thread->excluded.load(std::memory_order_relaxed)) {
    if (g_config.wall) thread->wall_pending.store(false, std::memory_order_release);
    return;
  }
  if (!g_config.wall) {
    capture(*thread, static_cast<uint8_t>(format::ThreadState::Running), ucontext);
    return;
  }
  if (capture(*thread, thread->wall_state.load(std::memory_order_relaxed), ucontext)) {
    // Read last, so the sampler can tell whether the thread ran since (wall_sampler.cpp);
    // only after a good capture: after a failed one the thread must be signalled again.
    thread->cpu_at_capture.store(currentThreadCpuTimeNs(), std::memory_order_relaxed);
    // Release: the sampler that sees has_stack also sees the slot published before it.
    thread->has_stack.store(true, std::memory_order_release);
  }
  thread->wall_pending.store(false, std::memory_order_release);
}

void onSigprof(int, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  if (g_active.load(std::memory_order_acquire)) handleSample(info, ucontext);
  errno = saved_errno;
}

}  // namespace

void* findAsyncGetCallTrace() { return dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"); }

bool installCaptureHandler(const CaptureConfig& config) {
  g_config = config;
  g_walk = reinterpret_cast<AsyncGetCallTraceFn>(config.async_get_call_trace);
  struct sigaction action{};
  action.sa_sigaction = onSigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGPROF, &action, nullptr) == 0;
}

void setCaptureActive(bool active) { g_active.store(active, std::memory_order_release); }
bool captureActive() { return g_active.load(std::memory_order_acquire); }

}  // namespace stackscope::agent

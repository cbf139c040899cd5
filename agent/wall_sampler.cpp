#include "agent/wall_sampler.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "agent/clocks.h"
#include "agent/thread_state.h"

namespace stackscope::agent {

namespace {

using format::ThreadState;

// CPU a thread may use after its capture and still count as not having run: returning from
// the signal handler and restarting the interrupted system call cost a few microseconds of
// the thread's own CPU time, after the handler read it.
constexpr int64_t kHandlerExitSlackNs = 50'000;

constexpr uint8_t kRunning = static_cast<uint8_t>(ThreadState::Running);

}  // namespace

void WallSampler::run(void* self_ptr, JNIEnv*, AgentThread& thread) {
  auto& self = *static_cast<WallSampler*>(self_ptr);
  int64_t next = monotonicNs() + self.interval_ns_;
  while (thread.sleepUntil(next)) {
    self.tick();
    next += self.interval_ns_;
    const int64_t now = monotonicNs();
    if (now >= next) {
      // This tick took longer than the interval (a long safepoint, a starved CPU): the ticks
      // skipped are samples due for every thread and not taken.
      const int64_t missed = (now - next) / self.interval_ns_ + 1;
      // Threads the filter leaves out were not due: count the ones this tick sampled.
      self.lost_.add(format::LostReason::TimerOverrun, static_cast<uint64_t>(missed) * self.sampled_);
      next += missed * self.interval_ns_;
    }
  }
}

void WallSampler::tick() {
  const int64_t time_ns = monotonicNs() - start_ns_;
  const pid_t pid = getpid();
  repeats_.clear();
  sampled_ = 0;
  // The registry mutex is held across each signal: ThreadEnd cannot remove a thread (and
  // its tid be reused) between our look at it and the tgkill.
  registry_.forEachLocked([&](ThreadSlot& slot) { sampleThread(slot, pid); });
  pushRepeats(time_ns);
}

void WallSampler::sampleThread(ThreadSlot& slot, pid_t pid) {
  // Left out by the annotation filter: no signal, no stack walk, not even a clock read.
  if (slot.excluded.load(std::memory_order_relaxed)) return;
  ++sampled_;
  if (slot.wall_pending.load(std::memory_order_acquire)) {
    // Still has not handled the previous tick's signal (starved of CPU).
    lost_.add(format::LostReason::TimerOverrun);
    return;
  }
  const int64_t cpu = threadCpuTimeNs(slot.tid);
  const bool has_stack = slot.has_stack.load(std::memory_order_acquire);
  // A thread whose CPU clock has not moved has executed nothing: its stack and its state
  // are what they were, so neither JVMTI nor a signal is needed.
  if (has_stack && cpu >= 0 && cpu == slot.last_seen_cpu && slot.last_state != kRunning) {
    repeat(slot, slot.last_state);
    return;
  }
  jint bits = 0;
  if (jvmti_->GetThreadState(slot.thread_ref, &bits) != JVMTI_ERROR_NONE ||
      !(bits & JVMTI_THREAD_STATE_ALIVE)) {
    lost_.add(format::LostReason::ThreadExiting);
    return;
  }
  const auto state = static_cast<uint8_t>(threadStateFromJvmti(bits));
  slot.last_seen_cpu = cpu;
  slot.last_state = state;
  // The signal interrupted this very wait (same state) and the thread used no more CPU than
  // the return from the handler costs: its stack is the one captured. A capture taken in
  // another state (running, say, just before a sleep) says nothing about the stack now.
  if (has_stack && state != kRunning && state == slot.signalled_state && cpu >= 0 &&
      cpu - slot.cpu_at_capture.load(std::memory_order_relaxed) <= kHandlerExitSlackNs) {
    repeat(slot, state);
    return;
  }
  slot.wall_state.store(state, std::memory_order_relaxed);
  slot.signalled_state = state;
  slot.wall_pending.store(true, std::memory_order_release);  // publishes wall_state too
  if (syscall(SYS_tgkill, pid, slot.tid, SIGPROF) != 0) {
    slot.wall_pending.store(false, std::memory_order_relaxed);
    lost_.add(format::LostReason::ThreadExiting);
  }
}

void WallSampler::repeat(ThreadSlot& slot, uint8_t state) {
  // The thread may change its annotation meanwhile (java_api.cpp). It sets `excluded`
  // before an annotation the filter rejects, and clears it only after one it accepts: so an
  // annotation read before a second look at `excluded` that still says included is one the
  // filter accepts.
  const uint32_t annotation = slot.annotation.load(std::memory_order_acquire);
  if (slot.excluded.load(std::memory_order_acquire)) return;
  repeats_.push_back({slot.id, annotation, state});
}

void WallSampler::pushRepeats(int64_t time_ns) {
  for (size_t done = 0; done < repeats_.size();) {
    const size_t count = std::min(repeats_.size() - done, kMaxRepeats);
    const SampleRing::Claim claim = ring_.tryClaim();
    if (!claim) {
      lost_.add(format::LostReason::BufferFull, repeats_.size() - done);
      return;
    }
    SampleSlot& slot = *claim.slot;
    slot.time_ns = time_ns;
    slot.kind = SlotKind::Repeat;
    slot.count = static_cast<uint16_t>(count);
    std::memcpy(slot.repeats, repeats_.data() + done, count * sizeof(RepeatEntry));
    ring_.publish(claim);
    done += count;
  }
}

}  // namespace stackscope::agent

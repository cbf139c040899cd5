#include "agent/wall_sampler.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "agent/clocks.h"
#include "agent/proc_task.h"
#include "agent/thread_state.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

namespace {

using format::ThreadState;

// CPU a thread may use after its capture and still count as not having run: returning from
// the signal handler and restarting the interrupted system call cost a few microseconds of
// the thread's own CPU time, after the handler read it.
constexpr int64_t kHandlerExitSlackNs = 50'000;

constexpr uint8_t kRunning = static_cast<uint8_t>(ThreadState::Running);
constexpr uint8_t kGc = static_cast<uint8_t>(ThreadState::Gc);
constexpr uint8_t kSafepoint = static_cast<uint8_t>(ThreadState::Safepoint);

// How long a sampler woken by a safepoint's end waits for the counters to count it, at most.
constexpr int kSafepointTimePolls = 20;
constexpr long kSafepointTimePollNs = 100'000;

}  // namespace

bool WallSampler::start(JNIEnv* jni) {
  VmStructs vm;
  if (vm.bind(lookupJvmSymbol)) safepoints_.bind(vm);
  return thread_.start(jvmti_, jni, "stackscope-wall-sampler", run, this);
}

void WallSampler::run(void* self_ptr, JNIEnv* jni, AgentThread& thread) {
  auto& self = *static_cast<WallSampler*>(self_ptr);
  int64_t next = monotonicNs() + self.interval_ns_;
  self.pause_mark_ = self.pauseMark();
  while (thread.sleepUntil(next)) {
    self.tick_due_ns_ = next;
    self.tick(jni);
    next += self.interval_ns_;
    const int64_t now = monotonicNs();
    if (now >= next) {
      // This tick took longer than the interval (a JVMTI call waited for a safepoint's end),
      // or the sampler itself waited for a CPU: the ticks the VM's pauses account for go to
      // the threads they stopped, the others are owed to every thread, as the ticks between
      // two looks at an idle thread are (settleOwed, repeatIdle).
      const int64_t missed = (now - next) / self.interval_ns_ + 1;
      self.tick_ += static_cast<uint64_t>(missed);
      next += missed * self.interval_ns_;
      self.creditStoppedTicks(static_cast<uint64_t>(missed) + (self.held_ ? 1 : 0), now - self.start_ns_);
    }
    self.pause_mark_ = self.pauseMark();
  }
  self.flushOwed();
}

WallSampler::PauseMark WallSampler::pauseMark() const {
  return {gc_.timeNsUntil(monotonicNs()), safepoints_.stoppedNs(), safepoints_.begun(), safepoints_.endMark()};
}

void WallSampler::creditStoppedTicks(uint64_t missed, int64_t time_ns) {
  PauseMark now = pauseMark();
  // A safepoint began since the last tick and has not ended, for the counters: it has, if
  // it held the sampler, but HotSpot counts its end just after it lets the threads go.
  for (int poll = 0; poll < kSafepointTimePolls && now.safepoints != pause_mark_.safepoints &&
                     now.safepoint_end == pause_mark_.safepoint_end;
       ++poll) {
    const timespec pause{0, kSafepointTimePollNs};
    nanosleep(&pause, nullptr);
    now = pauseMark();
  }
  const StoppedTicks stopped = stoppedTicks(missed, now.gc_ns - pause_mark_.gc_ns, now.stopped_ns - pause_mark_.stopped_ns,
                                            interval_ns_, gc_ticked_ ? 1 : 0);
  if (stopped.gc + stopped.safepoint == 0) return;
  repeats_.clear();
  registry_.forEachLocked([&](ThreadSlot& slot) {
    if (!slot.scheduled || slot.excluded.load(std::memory_order_relaxed) || !stoppedByPause(slot.last_state)) return;
    creditStopped(slot, kGc, stopped.gc);
    creditStopped(slot, kSafepoint, stopped.safepoint);
  });
  pushRepeats(time_ns);
}

void WallSampler::creditStopped(ThreadSlot& slot, uint8_t state, uint64_t ticks) {
  // Never more than the ticks since its last look: those are the ones not covered yet.
  ticks = std::min(ticks, tick_ - slot.last_look_tick);
  if (ticks == 0) return;
  slot.last_look_tick += ticks;
  // A thread never captured before the pause has no stack to stand for its time; nor has a
  // carrier running a virtual thread: the time is the virtual thread's, whose stacks are not
  // kept (only platform threads are repeated).
  if (!slot.has_stack.load(std::memory_order_acquire) || slot.mounted_vthread.load(std::memory_order_acquire) != 0) {
    lost_.add(format::LostReason::StoppedNoStack, ticks);
    return;
  }
  repeat(slot, state, static_cast<uint32_t>(std::min<uint64_t>(ticks, UINT32_MAX)));
}

void WallSampler::gcTick(int64_t time_ns) {
  registry_.withSlotsLocked([&](uint64_t generation, const auto& slots) {
    if (generation != schedule_generation_) reschedule(slots);
    schedule_generation_ = generation;
    // Every thread the GC stopped, due or not: one idle in the JVM and looked at rarely is
    // waiting for the GC's end too. The others are not looked at: a look needs JVMTI.
    for (Scheduled& entry : schedule_) {
      ThreadSlot& slot = *entry.slot;
      if (slot.excluded.load(std::memory_order_relaxed) || !stoppedByPause(slot.last_state)) continue;
      creditStopped(slot, kGc, 1);
    }
  });
  pushRepeats(time_ns);
}

void WallSampler::tick(JNIEnv* jni) {
  tick_start_ns_ = monotonicNs();
  held_ = false;
  gc_ticked_ = gc_.activeAt(tick_due_ns_);
  const int64_t time_ns = tick_start_ns_ - start_ns_;
  const pid_t pid = getpid();
  ++tick_;
  registry_.wall_tick.store(tick_, std::memory_order_relaxed);
  repeats_.clear();
  if (gc_ticked_) {
    gcTick(time_ns);
    return;
  }
  // The registry mutex is held across each signal: ThreadEnd cannot remove a thread (and
  // its tid be reused) between our look at it and the tgkill.
  registry_.withSlotsLocked([&](uint64_t generation, const auto& slots) {
    if (generation != schedule_generation_) reschedule(slots);
    schedule_generation_ = generation;
    // A thread not due is not even touched: its next look is in this compact array.
    const size_t count = schedule_.size();
    for (size_t n = 0; n < count; ++n) {
      const size_t at = (schedule_start_ + n) % count;
      Scheduled& entry = schedule_[at];
      if (entry.next_look > tick_) continue;
      ThreadSlot& slot = *entry.slot;
      sampleThread(slot, pid, time_ns);
      if (held_) {  // this thread's look was given up: the next tick begins with it
        schedule_start_ = at;
        break;
      }
      entry.next_look = slot.next_look_tick;
      // Each thread's name about once a second.
      if (tick_ - slot.last_rename_tick >= rename_period_) {
        slot.last_rename_tick = tick_;
        tracker_.noticeRename(jni, slot);
      }
    }
  });
  pushRepeats(time_ns);
}

void WallSampler::reschedule(const std::unordered_map<uint32_t, ThreadSlot*>& slots) {
  schedule_.clear();
  for (const auto& [id, slot] : slots) {
    if (!slot->scheduled) {
      slot->scheduled = true;
      slot->last_look_tick = tick_ - 1;  // nothing owed from before it was known
      slot->last_rename_tick = tick_ - id % rename_period_;  // spread over the ticks
    }
    schedule_.push_back({slot->next_look_tick, slot});
  }
}

void WallSampler::oweSkippedTicks(ThreadSlot& slot) {
  // Ticks since the last look that no look covered: skipped by the back-off, or missed by
  // a late sampler. Beyond a second's worth a stack says little about the ticks it would
  // stand for: those are lost.
  const uint64_t gap = tick_ - slot.last_look_tick - 1;
  slot.last_look_tick = tick_;
  const uint64_t room = max_pending_weight_ > slot.owed_ticks ? max_pending_weight_ - slot.owed_ticks : 0;
  const uint64_t owed = std::min(gap, room);
  slot.owed_ticks += static_cast<uint32_t>(owed);
  if (gap > owed) lost_.add(format::LostReason::TimerOverrun, gap - owed);
}

bool WallSampler::liveState(const ThreadSlot& slot, int64_t cpu, uint8_t& state) {
  jint bits = 0;
  if (jvmti_->GetThreadState(slot.thread_ref, &bits) != JVMTI_ERROR_NONE || !(bits & JVMTI_THREAD_STATE_ALIVE)) {
    return false;
  }
  // Only a thread JVMTI calls runnable in Java code pays for the kernel's word (a file read),
  // and not one that used half an interval of CPU since its last look: that one runs.
  const bool busy = cpu >= 0 && slot.last_seen_cpu >= 0 && cpu - slot.last_seen_cpu >= interval_ns_ / 2;
  const char os_state = slot.tid != 0 && !busy && needsSchedulerState(bits) ? osSchedulerState(slot.tid) : 0;
  state = static_cast<uint8_t>(threadStateFromJvmti(bits, os_state));
  return true;
}

void WallSampler::sampleThread(ThreadSlot& slot, pid_t pid, int64_t time_ns) {
  // Left out by the annotation filter: no signal, no stack walk, not even a clock read; and
  // not due, so nothing owed.
  if (slot.excluded.load(std::memory_order_relaxed)) {
    slot.last_look_tick = tick_;
    return;
  }
  oweSkippedTicks(slot);
  if (slot.foreign) {
    sampleForeign(slot, time_ns);
    return;
  }
  switch (addPendingTick(slot.wall_pending, max_pending_weight_)) {
    case PendingTick::Added:  // starved of CPU: the capture still to come stands for this tick too
      return;
    case PendingTick::Full:
      lost_.add(format::LostReason::TimerOverrun);
      return;
    case PendingTick::NotPending:
      break;
  }
  const int64_t cpu = threadCpuTimeNs(slot.tid);
  const bool has_stack = slot.has_stack.load(std::memory_order_acquire);
  // A thread whose CPU clock has not moved has executed nothing: its stack and its state
  // are what they were, so neither JVMTI nor a signal is needed.
  if (has_stack && cpu >= 0 && cpu == slot.last_seen_cpu && slot.last_state != kRunning) {
    repeatIdle(slot, slot.last_state);
    return;
  }
  settleOwed(slot);
  uint8_t state = 0;
  if (!liveState(slot, cpu, state)) {
    lost_.add(format::LostReason::ThreadExiting);
    return;
  }
  // A stack taken now would stand for a tick it was not in (held_): the look is given up, but
  // not twice in a row. A sampler starved of CPU at every tick (a loaded machine) would
  // otherwise never look at a running thread again, and lose its whole life at its end.
  if (monotonicNs() - tick_start_ns_ >= interval_ns_ && !slot.look_given_up) {
    held_ = true;
    slot.look_given_up = true;
    slot.last_look_tick = tick_ - 1;
    return;
  }
  slot.look_given_up = false;
  // A carrier running a virtual thread: JVMTI calls the carrier waiting, but the sample will
  // be the virtual thread's, running if the kernel can run the carrier (virtual_threads.h).
  const uint32_t vthread = slot.mounted_vthread.load(std::memory_order_acquire);
  if (vthread != 0) {
    const char os_state = osSchedulerState(slot.tid);
    state = static_cast<uint8_t>(os_state == 0 || os_state == 'R' ? ThreadState::Running : ThreadState::Idle);
  }
  slot.last_seen_cpu = cpu;
  slot.last_state = state;
  // The signal interrupted this very wait (same state) and the thread used no more CPU than
  // the return from the handler costs: its stack is the one captured. A capture taken in
  // another state (running, say, just before a sleep) says nothing about the stack now.
  if (has_stack && state != kRunning && state == slot.signalled_state && cpu >= 0 &&
      cpu - slot.cpu_at_capture.load(std::memory_order_relaxed) <= kHandlerExitSlackNs) {
    repeat(slot, state, 1);
    return;
  }
  slot.wall_state.store(state, std::memory_order_relaxed);
  slot.wall_vthread.store(vthread, std::memory_order_relaxed);
  slot.signalled_state = state;
  slot.wall_pending.store(1, std::memory_order_release);  // publishes wall_state too
  if (syscall(SYS_tgkill, pid, slot.tid, SIGPROF) != 0) {
    slot.wall_pending.store(0, std::memory_order_relaxed);
    lost_.add(format::LostReason::ThreadExiting);
  }
}

void WallSampler::sampleForeign(ThreadSlot& slot, int64_t time_ns) {
  // With its tid (proc_task.h found it) a foreign thread has a CPU clock to tell whether it ran.
  const int64_t cpu = slot.tid != 0 ? threadCpuTimeNs(slot.tid) : -1;
  const bool has_stack = slot.has_stack.load(std::memory_order_relaxed);
  if (has_stack && cpu >= 0 && cpu == slot.last_seen_cpu && slot.last_state != kRunning) {
    repeatIdle(slot, slot.last_state);
    return;
  }
  settleOwed(slot);
  uint8_t state = 0;
  // A thread that ended is due no sample: its ThreadEnd removes the slot, or already ran
  // (it ended while VMInit listed the threads) and the slot just stays idle.
  if (!liveState(slot, cpu, state)) return;
  slot.last_seen_cpu = cpu;
  slot.last_state = state;
  // Without a tid there is no CPU clock: a stack captured in the same idle state is taken as
  // its stack still, as for a thread interrupted in a wait; a running one is read again.
  if (cpu < 0 && has_stack && state != kRunning && state == slot.signalled_state) {
    repeat(slot, state, 1);
    return;
  }
  captureForeign(slot, state, time_ns);
}

void WallSampler::repeatIdle(ThreadSlot& slot, uint8_t state) {
  repeat(slot, state, 1 + slot.owed_ticks);
  slot.owed_ticks = 0;
  slot.idle_period = longerIdlePeriod(slot.idle_period, max_idle_period_);
  slot.next_look_tick = nextLookTick(tick_, slot.idle_period, slot.id);
}

void WallSampler::settleOwed(ThreadSlot& slot) {
  if (slot.owed_ticks > 0) {
    // Without a stack of the thread's there is nothing to repeat.
    if (slot.has_stack.load(std::memory_order_acquire)) {
      repeat(slot, slot.last_state, slot.owed_ticks);
    } else {
      lost_.add(format::LostReason::TimerOverrun, slot.owed_ticks);
    }
  }
  slot.owed_ticks = 0;
  slot.idle_period = 1;
  slot.next_look_tick = 0;
}

void WallSampler::flushOwed() {
  repeats_.clear();
  registry_.forEachLocked([&](ThreadSlot& slot) {
    if (!slot.scheduled || slot.excluded.load(std::memory_order_relaxed)) return;
    if (slot.last_look_tick < tick_) {
      oweSkippedTicks(slot);
      ++slot.owed_ticks;  // the last tick, which no look covered either
    }
    if (slot.has_stack.load(std::memory_order_acquire)) {
      repeat(slot, slot.last_state, slot.owed_ticks);
    }
    slot.owed_ticks = 0;
  });
  pushRepeats(monotonicNs() - start_ns_);
}

void WallSampler::captureForeign(ThreadSlot& slot, uint8_t state, int64_t time_ns) {
  jint count = 0;
  // Read before claiming a ring slot: the writer must not wait at a claimed slot while the
  // JVM brings the thread to a handshake.
  if (jvmti_->GetStackTrace(slot.thread_ref, 0, kMaxFrames, frames_.data(), &count) != JVMTI_ERROR_NONE) {
    lost_.add(format::LostReason::ThreadExiting);
    return;
  }
  const SampleRing::Claim claim = ring_.tryClaim();
  if (!claim) {
    lost_.add(format::LostReason::BufferFull);
    return;
  }
  SampleSlot& sample = *claim.slot;
  sample.time_ns = time_ns;
  sample.thread = slot.id;
  sample.annotation = slot.annotation.load(std::memory_order_relaxed);
  sample.state = state;
  sample.weight = 1;
  sample.carrier = 0;
  const MetricDeltas deltas = takeDeltas(slot.metric_base, readThreadCounters(slot.tid));
  sample.cpu_us = deltas.cpu_us;
  sample.alloc_bytes = deltas.alloc_bytes;
  sample.kind = SlotKind::Stack;
  sample.count = static_cast<uint16_t>(count);
  for (jint i = 0; i < count; ++i) {
    sample.frames[i] = {static_cast<int32_t>(frames_[i].location), frames_[i].method};
  }
  ring_.publish(claim);
  slot.signalled_state = state;
  slot.has_stack.store(true, std::memory_order_relaxed);
}

void WallSampler::repeat(ThreadSlot& slot, uint8_t state, uint32_t weight) {
  // The thread may change its annotation meanwhile (java_api.cpp). It sets `excluded`
  // before an annotation the filter rejects, and clears it only after one it accepts: so an
  // annotation read before a second look at `excluded` that still says included is one the
  // filter accepts.
  const uint32_t annotation = slot.annotation.load(std::memory_order_acquire);
  if (slot.excluded.load(std::memory_order_acquire)) return;
  // Weights beyond a repeat's 16 bits (a tick backlog no look covered) are split.
  while (weight > 0) {
    const uint16_t part = static_cast<uint16_t>(std::min<uint32_t>(weight, UINT16_MAX));
    repeats_.push_back({slot.id, annotation, state, part});
    weight -= part;
  }
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

// cpu mode: a sample stands for the CPU time its thread used since its previous sample, in
// whole sampling intervals, not for one signal. The kernel does not send every signal it
// owes: it throttles task-clock events once it has lowered perf_event_max_sample_rate (which
// it does by itself on a loaded machine: "perf: interrupt took too long"), merges a SIGPROF
// into one still pending, and checks POSIX CPU timers only at its tick. Counting signals then
// loses samples unevenly between threads: a thread using two thirds of the CPU got 72 % of
// the samples in one CI run. The thread's own CPU clock says how much time each sample covers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace stackscope::agent {

// The CPU time a thread's samples stood for so far. Set when its timer is armed, then moved
// on by its own signal handler only.
struct SampledCpuTime {
  std::atomic<int64_t> ns{-1};  // -1 = unknown
  // Whether a signal was counted since the timer was armed.
  std::atomic<bool> counted{false};

  void arm(int64_t clock_ns) {
    counted.store(false, std::memory_order_relaxed);
    ns.store(clock_ns, std::memory_order_relaxed);
  }
};

// The intervals a sample taken when the thread's CPU clock reads `now_ns` stands for, moving
// `sampled.ns` on by as many intervals: rounded, so it stays within half an interval of the
// clock. A signal comes early when the task clock runs on while the hypervisor steals the
// CPU, which the thread's clock does not count: on a busy CI machine one thread's samples
// stood for 2.08 s where its clock read 1.5 s. An early signal stands for no interval (0:
// the caller takes no sample), except the first since the timer was armed, which counts once
// (a thread that ran less than half an interval would otherwise not show at all) and moves
// `sampled.ns` at most up to the clock. Async-signal-safe.
inline uint32_t takeOwedIntervals(SampledCpuTime& sampled, int64_t now_ns, int64_t interval_ns) {
  const int64_t before = sampled.ns.load(std::memory_order_relaxed);
  const bool first = !sampled.counted.exchange(true, std::memory_order_relaxed);
  if (before < 0 || now_ns < 0 || interval_ns <= 0) return 1;
  const int64_t owed = (now_ns - before + interval_ns / 2) / interval_ns;
  if (owed < 1) {
    if (!first) return 0;
    sampled.ns.store(std::max(before, std::min(before + interval_ns, now_ns)), std::memory_order_relaxed);
    return 1;
  }
  const int64_t intervals = std::min<int64_t>(owed, UINT16_MAX);
  sampled.ns.store(before + intervals * interval_ns, std::memory_order_relaxed);
  return static_cast<uint32_t>(intervals);
}

}  // namespace stackscope::agent

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

// The intervals a sample taken when the thread's CPU clock reads `now_ns` stands for (at least
// one), moving `sampled_ns` (the CPU time the thread's samples stood for so far, -1 = unknown)
// on by as many intervals: rounded, so `sampled_ns` stays within half an interval of the
// clock. A signal that comes early (the task clock runs on while the hypervisor steals the
// CPU) still counts once, but builds no credit against a later loss: it moves `sampled_ns` at
// most up to the clock. Async-signal-safe.
inline uint32_t takeOwedIntervals(std::atomic<int64_t>& sampled_ns, int64_t now_ns, int64_t interval_ns) {
  const int64_t sampled = sampled_ns.load(std::memory_order_relaxed);
  if (sampled < 0 || now_ns < 0 || interval_ns <= 0) return 1;
  const int64_t owed = (now_ns - sampled + interval_ns / 2) / interval_ns;
  if (owed < 1) {
    sampled_ns.store(std::max(sampled, std::min(sampled + interval_ns, now_ns)), std::memory_order_relaxed);
    return 1;
  }
  const int64_t intervals = std::min<int64_t>(owed, UINT16_MAX);
  sampled_ns.store(sampled + intervals * interval_ns, std::memory_order_relaxed);
  return static_cast<uint32_t>(intervals);
}

}  // namespace stackscope::agent

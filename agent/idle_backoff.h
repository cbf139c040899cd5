// wall mode: how often a thread that stays idle is looked at.
//
// A thread whose CPU clock has not moved since its last look has the same stack and state:
// its sample is a repeat. Reading the clock still costs a system call, and with thousands
// of idle threads at a 1 ms interval those reads alone overran the tick. So a thread found
// idle again is looked at half as often, up to a cap; the ticks it was not looked at are
// owed to it and paid with its next sample's weight (or, when it turns out to have run, by
// a repeat of its previous stack weighing the owed ticks: the wake-up lies somewhere in
// them, and until a thread wakes it is idle). Sampler thread only.
#pragma once

#include <algorithm>
#include <cstdint>

namespace stackscope::agent {

// The longest a thread goes unlooked-at: a thread that wakes up is seen at most this late,
// so at most this much of its new activity is attributed to its old, idle stack.
inline constexpr int64_t kMaxIdleLookGapNs = 64'000'000;
inline constexpr uint32_t kMaxIdlePeriodTicks = 64;

inline uint32_t maxIdlePeriod(int64_t interval_ns) {
  return static_cast<uint32_t>(
      std::clamp<int64_t>(kMaxIdleLookGapNs / std::max<int64_t>(interval_ns, 1), 1, kMaxIdlePeriodTicks));
}

// The period after one more look that found the thread idle.
inline uint32_t longerIdlePeriod(uint32_t period, uint32_t max_period) {
  return std::min(std::max<uint32_t>(period, 1) * 2, max_period);
}

// The tick of the next look. Threads that went idle together would otherwise be looked at
// on the same ticks for ever: a per-thread offset of up to half the period spreads them.
inline uint64_t nextLookTick(uint64_t tick, uint32_t period, uint32_t thread_id) {
  const uint32_t spread = period >= 4 ? thread_id % (period / 2) : 0;
  return tick + period - spread;
}

}  // namespace stackscope::agent

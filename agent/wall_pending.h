// wall mode: the ticks that wait for one signal's capture.
//
// With more busy threads than cores, a thread signalled at one tick may not have run its
// handler by the next. Its Java stack cannot change before the handler runs, so the ticks
// that find the signal still pending are not lost: they are added to the weight of the one
// sample the handler will take. ThreadSlot::wall_pending holds that weight: 0 = no signal
// pending, n > 0 = signalled, n ticks wait for the capture. The sampler sets it to 1 when it
// signals and adds ticks; the handler takes it all at once, which ends the pending period.
//
// Lock-free atomics only: the handler side runs in a signal handler.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace stackscope::agent {

static_assert(std::atomic<uint32_t>::is_always_lock_free);

// The weight is capped at a second's worth of ticks: a signal pending that long means more
// than a starved CPU (SIGPROF blocked while the thread runs on, say), and a stack captured
// then may not be the one of the earlier ticks; those beyond the cap are counted as lost.
inline uint32_t maxPendingWeight(int64_t interval_ns) {
  constexpr int64_t kMaxPendingNs = 1'000'000'000;
  return static_cast<uint32_t>(std::clamp<int64_t>(kMaxPendingNs / std::max<int64_t>(interval_ns, 1), 2, 1'000'000));
}

enum class PendingTick : uint8_t {
  NotPending,  // no signal pending (any more): sample the thread as usual
  Added,       // the tick waits for the pending capture
  Full,        // the weight is at its cap: the tick is lost
};

// Sampler side: adds this tick to the pending capture's weight, if a capture is pending.
inline PendingTick addPendingTick(std::atomic<uint32_t>& pending, uint32_t max_weight) {
  // Acquire: once the handler took the weight, what it stored before (has_stack, ...) is seen.
  uint32_t weight = pending.load(std::memory_order_acquire);
  do {
    if (weight == 0) return PendingTick::NotPending;
    if (weight >= max_weight) return PendingTick::Full;
  } while (!pending.compare_exchange_weak(weight, weight + 1, std::memory_order_acq_rel, std::memory_order_acquire));
  return PendingTick::Added;
}

// Handler side: the weight of the capture (0 if no signal was pending), and no longer pending.
inline uint32_t takePendingWeight(std::atomic<uint32_t>& pending) {
  return pending.exchange(0, std::memory_order_acq_rel);
}

}  // namespace stackscope::agent

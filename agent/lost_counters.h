// Counts of samples that were due but not taken, per reason. Incremented from signal
// handlers, so plain lock-free atomics; the writer thread turns them into Lost records.
#pragma once

#include <atomic>
#include <cstdint>

#include "format/records.h"

namespace stackscope::agent {

class LostCounters {
 public:
  static_assert(std::atomic<uint64_t>::is_always_lock_free);

  void add(format::LostReason reason, uint64_t count = 1) {
    counts_[static_cast<int>(reason)].fetch_add(count, std::memory_order_relaxed);
  }
  uint64_t get(format::LostReason reason) const {
    return counts_[static_cast<int>(reason)].load(std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> counts_[format::kLostReasonMax + 1] = {};
};

// The reason for an AsyncGetCallTrace result num_frames <= 0 (HotSpot's error codes).
format::LostReason lostReasonForWalkError(int num_frames);

}  // namespace stackscope::agent

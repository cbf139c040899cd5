// The stacks the writer thread has named, as a table of their hashes that the traces' threads
// read without a lock (writer_pacing.h): an event whose stack is in it need not wake the writer
// from a long sleep, since its frames were named before and a class unloaded meanwhile takes
// nothing from it. A steady program repeats a few stacks (LockContention's waits, one throw
// site), so its events let the writer sleep; an event with a new stack wakes it as before.
//
// Direct-mapped and lossy: a stack pushed out by another costs its next event a wake, never a
// lost name; two stacks with one 64-bit hash would let the second wait for the writer's next
// regular drain (at most a second, WriterPacing::kLongestNs), which is all a miss can cost.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>

#include "agent/raw_stack_cache.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

class NamedStacks {
 public:
  static constexpr size_t kSlots = 4096;  // 32 KiB

  // Never 0, which is "no stack" (BoundedQueue).
  static uint64_t hashOf(std::span<const RawFrame> frames) { return RawStackCache::hashOf(0, frames) | 1; }

  bool contains(uint64_t hash) const { return slots_[hash % kSlots].load(std::memory_order_relaxed) == hash; }
  // Writer thread, for each stack it names or finds named.
  void add(uint64_t hash) { slots_[hash % kSlots].store(hash, std::memory_order_relaxed); }
  void clear() {
    for (auto& slot : slots_) slot.store(0, std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<uint64_t>, kSlots> slots_{};
};

}  // namespace stackscope::agent

// A bounded lock-free multi-producer single-consumer ring of fixed-size slots.
//
// Producers are signal handlers (and the wall sampler thread), so claiming and publishing a
// slot must be async-signal-safe: only lock-free atomics, no allocation, no waiting. Each cell
// carries a sequence number (the scheme of D. Vyukov's bounded queue): a cell is free for the
// producer holding ticket `pos` when seq == pos, and holds data for the consumer when
// seq == pos + 1. A producer writes its data straight into the claimed slot (no copy of an
// 8 KB stack on a thread stack that may be nearly exhausted), then publishes it.
//
// Rules: tryClaim/publish from any thread or signal handler; front/pop from one consumer at a
// time (the agent guards that with its writer mutex). A claimed slot must always be published,
// otherwise the consumer stops at it for good.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace stackscope::agent {

template <typename T>
class MpscRing {
 public:
  // `capacity` must be a power of two.
  explicit MpscRing(size_t capacity) : mask_(capacity - 1), cells_(new Cell[capacity]) {
    for (size_t i = 0; i < capacity; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
  }
  MpscRing(const MpscRing&) = delete;
  MpscRing& operator=(const MpscRing&) = delete;

  static_assert(std::atomic<uint64_t>::is_always_lock_free, "signal handlers need lock-free atomics");

  // A slot claimed by a producer; pass it back to publish(). Null when the ring is full.
  struct Claim {
    T* slot = nullptr;
    uint64_t ticket = 0;
    explicit operator bool() const { return slot != nullptr; }
  };

  Claim tryClaim() {
    uint64_t pos = enqueue_.load(std::memory_order_relaxed);
    for (;;) {
      Cell& cell = cells_[pos & mask_];
      const uint64_t seq = cell.seq.load(std::memory_order_acquire);
      const int64_t diff = static_cast<int64_t>(seq - pos);
      if (diff == 0) {
        if (enqueue_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) return {&cell.value, pos};
        // pos was reloaded by the failed exchange: try that ticket.
      } else if (diff < 0) {
        return {};  // the consumer has not freed this cell yet: full
      } else {
        pos = enqueue_.load(std::memory_order_relaxed);  // another producer took it
      }
    }
  }

  void publish(const Claim& claim) {
    cells_[claim.ticket & mask_].seq.store(claim.ticket + 1, std::memory_order_release);
  }

  // The oldest published slot, or null when there is none (or the oldest claimed slot is
  // still being written).
  const T* front() const {
    const Cell& cell = cells_[dequeue_ & mask_];
    if (cell.seq.load(std::memory_order_acquire) != dequeue_ + 1) return nullptr;
    return &cell.value;
  }

  // Frees the slot returned by front() for producers.
  void pop() {
    cells_[dequeue_ & mask_].seq.store(dequeue_ + mask_ + 1, std::memory_order_release);
    ++dequeue_;
  }

  size_t capacity() const { return mask_ + 1; }

 private:
  struct Cell {
    std::atomic<uint64_t> seq{0};
    T value;
  };

  const uint64_t mask_;
  std::unique_ptr<Cell[]> cells_;
  alignas(64) std::atomic<uint64_t> enqueue_{0};
  alignas(64) uint64_t dequeue_ = 0;  // consumer only
};

}  // namespace stackscope::agent

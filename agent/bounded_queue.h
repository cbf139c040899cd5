// The queue between a trace's JVMTI callbacks and the writer thread, for events that come on
// Java threads where JVMTI calls and allocation are fine (exceptions, sampled allocations,
// lock waits):
// bounded, so its memory stays bounded whatever the program does; what does not fit is
// counted, not queued, and said at the end.
//
// Rule: the mutex is held only around the vector operations, never across a JVMTI or JNI call
// (one that may reach a safepoint would stall the writer behind a stopped thread).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace stackscope::agent {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}

  // Cheap look before the callback does its work: a full queue would refuse it anyway.
  bool full() const { return queued_.load(std::memory_order_relaxed) >= capacity_; }
  // Counts an event the caller gave up on because full() said so.
  void drop() { dropped_.fetch_add(1, std::memory_order_relaxed); }

  void push(T&& item) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.size() >= capacity_) {
      drop();
      return;
    }
    queue_.push_back(std::move(item));
    queued_.store(queue_.size(), std::memory_order_relaxed);
  }

  // Writer thread: moves every queued item into `out` (cleared first).
  void takeAll(std::vector<T>& out) {
    out.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(queue_);
    queued_.store(0, std::memory_order_relaxed);
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  const size_t capacity_;
  std::mutex mutex_;  // taken by the callbacks' threads and the writer, nothing else under it
  std::vector<T> queue_;
  std::atomic<size_t> queued_{0};  // queue_.size(), for a look without the lock
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace stackscope::agent

// The queue between a trace's JVMTI callbacks and the writer thread, for events that come on
// Java threads where JVMTI calls and allocation are fine (exceptions, sampled allocations,
// lock waits):
// bounded, so its memory stays bounded whatever the program does; what does not fit is
// counted, not queued, and said at the end.
//
// Rule: the mutex is held only around the vector operations, never across a JVMTI or JNI call
// (one that may reach a safepoint would stall the writer behind a stopped thread).
//
// The writer may sleep up to a second (writer_pacing.h): an event with a stack it has not
// named yet wakes it, so that the event's frames are named soon, and so does the push that
// fills a quarter of the queue, so that a burst is not dropped. An item without a stack of its
// own (no `frames` vector) wakes it as the first after a drain.
//
// An event's stack may be queued with it into the queue's one flat frame store (push with
// frames): no allocation per event once the stores have grown, where a vector per event was
// allocated on the calling thread and freed on the writer's (defeating malloc's per-thread
// caches: about a tenth of the exception trace's cost on a program that only throws).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "agent/named_stacks.h"
#include "agent/sample_slot.h"
#include "agent/writer_pacing.h"

namespace stackscope::agent {

// Where an event's frames are in its batch's frame store (BoundedQueue::push with frames).
struct FrameRange {
  uint32_t first = 0;
  uint32_t count = 0;
  std::span<const RawFrame> in(const std::vector<RawFrame>& store) const { return {store.data() + first, count}; }
};

template <typename T>
class BoundedQueue {
 public:
  // `wake`: the writer's, or null (nobody to wake).
  BoundedQueue(size_t capacity, WriterWake* wake) : capacity_(capacity), wake_(wake) {}

  // Cheap look before the callback does its work: a full queue would refuse it anyway.
  bool full() const { return queued_.load(std::memory_order_relaxed) >= capacity_; }
  // Counts an event the caller gave up on because full() said so.
  void drop() { dropped_.fetch_add(1, std::memory_order_relaxed); }

  void push(T&& item) {
    // Hashed here, before the item and its frames go to the writer, who may free them at once.
    uint64_t stack = 0;
    if constexpr (requires { std::span<const RawFrame>(item.frames); }) stack = NamedStacks::hashOf(item.frames);
    pushWith(std::move(item), 0, stack, [](T&) {});
  }

  // At most this many frames wait in a store (64 MiB): an event whose frames would not fit is
  // dropped and counted, as when the queue is full, so that a storm of deep stacks between two
  // drains neither grows the store without bound nor copies it whole under the lock.
  static constexpr size_t kMaxQueuedFrames = 4 << 20;

  // Queues `item` with a copy of `frames` in the frame store; item.frames says where.
  void push(T&& item, std::span<const RawFrame> frames) {
    pushWith(std::move(item), frames.size(), NamedStacks::hashOf(frames), [&](T& queued) {
      queued.frames = {static_cast<uint32_t>(frames_.size()), static_cast<uint32_t>(frames.size())};
      frames_.insert(frames_.end(), frames.begin(), frames.end());
    });
  }

  // A frame store that grew past this (a burst of deep stacks) is given back rather than kept.
  static constexpr size_t kMaxKeptFrames = 1 << 20;  // 16 MiB of RawFrame

  // Writer thread: moves every queued item into `out` (cleared first), and the frame store
  // into `out_frames`, at once. The vectors are swapped, so the queue goes on in the writer's
  // previous ones, whose memory is already there.
  void takeAll(std::vector<T>& out, std::vector<RawFrame>& out_frames) {
    out.clear();
    out_frames.clear();
    if (out_frames.capacity() > kMaxKeptFrames) std::vector<RawFrame>().swap(out_frames);
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(queue_);
    out_frames.swap(frames_);
    queued_.store(0, std::memory_order_relaxed);
  }
  void takeAll(std::vector<T>& out) {
    out.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(queue_);
    queued_.store(0, std::memory_order_relaxed);
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  // Queues `item` after `fill(item)`, both under the lock, unless the queue or the frame
  // store (for `frame_count` more) is full. `stack`: the hash of its stack, 0 for none.
  template <typename Fill>
  void pushWith(T&& item, size_t frame_count, uint64_t stack, Fill&& fill) {
    size_t size = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.size() >= capacity_ || frames_.size() + frame_count > kMaxQueuedFrames) {
        drop();
        return;
      }
      fill(item);
      queue_.push_back(std::move(item));
      size = queue_.size();
      queued_.store(size, std::memory_order_relaxed);
    }
    if (!wake_) return;
    if (size == capacity_ / 4 || (stack == 0 && size == 1)) {
      wake_->nudge();
    } else if (stack != 0) {
      wake_->nudgeFor(stack);
    }
  }

  const size_t capacity_;
  WriterWake* const wake_;
  std::mutex mutex_;  // taken by the callbacks' threads and the writer, nothing else under it
  std::vector<T> queue_;
  std::vector<RawFrame> frames_;  // the frames of queue_'s items pushed with frames
  std::atomic<size_t> queued_{0};  // queue_.size(), for a look without the lock
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace stackscope::agent

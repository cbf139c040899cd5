// How long the writer thread sleeps between two drains of the agent's buffers.
//
// Each wake-up costs the program a context switch and the caches it disturbs: 50 a second
// cost a contended JDK 25 run (LockContention) about 3 % of its CPU with every trace but the
// gc trace off (docs/benchmarks.md, "The writer sleeps while nothing comes"). So a session
// that samples nothing sleeps longer while nothing new comes: the sleep doubles after each
// drain that named no new stack, up to a second (the flush period: a file is never more
// than that behind anyway).
//
// Events with a stack not named yet are drained within 20 ms: their frames are named at the
// drain, and a class unloaded meanwhile (a class loader's, a hidden class) leaves its frames
// unnamed. So such an event that comes during a long sleep wakes the writer (BoundedQueue,
// through WriterWake), and a drain that named a new stack makes the next sleep the shortest.
// An event whose stack the writer named before (named_stacks.h) may wait as events without
// stacks do: a steady program's lock waits repeat a few stacks, and draining them every 20 ms
// cost LockContention's JDK 17 run about 2 % of its CPU in the writer (docs/benchmarks.md).
// A lock wait that may still want an owner look (lock_owners.h) has the writer look within
// 20 ms while the look budget has one, and when it next has one while it has none.
// A sampling session keeps the shortest sleep always: its samples come in signal handlers,
// which cannot wake the writer.
//
// Buffers of events without stacks (collections, thread starts and ends, object deaths) only
// must not fill: the sleep shortens so that a drain finds the fullest about kTargetFill full,
// and the thread events wake the writer at a quarter of theirs (MetaQueue). The GC ring holds
// 1024 collections, more than a JVM runs in a second.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>

#include "agent/named_stacks.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

class WriterPacing {
 public:
  static constexpr int64_t kShortestNs = 20'000'000;
  static constexpr int64_t kLongestNs = 1'000'000'000;
  static constexpr double kTargetFill = 1.0 / 8;

  // `longest_ns`: kLongestNs for a session that samples nothing, else kShortestNs.
  explicit WriterPacing(int64_t longest_ns) : longest_ns_(std::clamp(longest_ns, kShortestNs, kLongestNs)) {}

  // The next sleep, after a drain that found its fullest buffer `fullest` full (0 to 1 of its
  // capacity) `elapsed_ns` after the drain before (a wake or a flush may have cut the sleep
  // short); `soon`: it named a new stack, or a lock wait may want a look now.
  int64_t next(double fullest, int64_t elapsed_ns, bool soon) {
    const int64_t longer = std::min(period_ns_ * 2, longest_ns_);
    if (soon) {
      period_ns_ = kShortestNs;
    } else if (fullest <= 0) {
      period_ns_ = longer;
    } else {
      const double fitting = static_cast<double>(std::max<int64_t>(elapsed_ns, 0)) * kTargetFill / fullest;
      period_ns_ = std::clamp(static_cast<int64_t>(std::min(fitting, 4e18)), kShortestNs, longer);
    }
    return period_ns_;
  }
  int64_t periodNs() const { return period_ns_; }

 private:
  const int64_t longest_ns_;
  int64_t period_ns_ = kShortestNs;
};

// Wakes the writer thread from a long sleep. Producers call nudge() when an event comes that
// should not wait (writer_pacing.h): while the writer is not in a long sleep that is one
// relaxed load, so they need not count how often they call it. Java threads only (waking
// takes the writer thread's mutex).
class WriterWake {
 public:
  // An event with the stack of hash `stack` (NamedStacks::hashOf) came: wakes a long sleep
  // unless the writer named that stack before.
  void nudgeFor(uint64_t stack) {
    if (sleeping_long_.load(std::memory_order_relaxed) && !named_.contains(stack)) nudge();
  }
  // The writer, for each stack it named or found named; and at a rotation, whose new file
  // names every stack again.
  void named(std::span<const RawFrame> frames) { named_.add(NamedStacks::hashOf(frames)); }
  void forgetNamed() { named_.clear(); }
  // The writer, before its thread starts: how to end its sleep.
  void attach(std::function<void()> wake) { wake_ = std::move(wake); }
  // The writer, before and after a sleep longer than WriterPacing::kShortestNs.
  void sleepingLong(bool sleeping) { sleeping_long_.store(sleeping, std::memory_order_release); }
  bool isSleepingLong() const { return sleeping_long_.load(std::memory_order_acquire); }
  void nudge() {
    if (!sleeping_long_.load(std::memory_order_relaxed)) return;
    // One nudge per long sleep wakes it: the exchange lets only the first through.
    if (sleeping_long_.exchange(false, std::memory_order_acq_rel) && wake_) wake_();
  }

 private:
  std::function<void()> wake_;
  std::atomic<bool> sleeping_long_{false};
  NamedStacks named_;
};

}  // namespace stackscope::agent

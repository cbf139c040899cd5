// The gc trace (event=...,gc): one record per garbage collection, with its start, its
// duration (the pause, for a stop-the-world collection), the collector and the cause.
//
// Times come from JVMTI's GarbageCollectionStart/Finish, sent by the VM thread inside the
// pause, where no JVMTI or JNI call is allowed. Names and causes come from HotSpot's PerfData
// counters (perf_data.h), read in the finish callback itself, so they belong to exactly that
// collection: the collector is the one whose sun.gc.collector.N.invocations moved since the
// last finish (several when one pause ran several, as a young collection turned full), the
// cause is sun.gc.cause while the collection still holds it, else sun.gc.lastCause (HotSpot
// restores the cause before or after the finish event depending on the collector), but none
// for the pauses of a concurrent cycle (G1's remark and cleanup), which HotSpot runs without
// one. The
// management beans' notifications were the other choice: they come later, on a Java thread,
// and would need matching to these events by time; the counters are exact and cost no thread.
// Without PerfData (-XX:-UsePerfData) collections are still recorded, with no names.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "agent/mpsc_ring.h"
#include "agent/perf_data.h"

namespace stackscope::agent {

struct GcCollection {
  int64_t start_ns = 0;  // since the recording's time 0
  int64_t end_ns = 0;
  uint32_t collectors = 0;  // bit N: sun.gc.collector.N ran
  char cause[64] = {};
};

class GcTrace {
 public:
  static constexpr int kMaxCollectors = 8;

  explicit GcTrace(int64_t start_ns) : start_ns_(start_ns), ring_(kCapacity) {}

  // Finds the counters; before (or without) it collections have no names. Once, at VMInit.
  void bind(const PerfMemoryBlock& block);

  // VM thread, inside the GC: atomics and reads of the counters only.
  void onStart(int64_t now_ns);
  void onFinish(int64_t now_ns);

  // Writer thread: hands every finished collection to fn(const GcCollection&), oldest first.
  template <typename Fn>
  void drain(Fn&& fn) {
    while (const GcCollection* collection = ring_.front()) {
      fn(*collection);
      ring_.pop();
    }
  }
  // "Serial full collection", or several joined with " + ", or "" when unknown.
  std::string collectorNames(uint32_t collectors) const;
  // Collections lost because the writer fell more than kCapacity behind.
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

  // Collections the writer may fall behind by: more than a JVM runs in a second, the longest
  // the writer sleeps (writer_pacing.h).
  static constexpr size_t kCapacity = 1024;

 private:
  const int64_t start_ns_;
  MpscRing<GcCollection> ring_;
  std::atomic<int64_t> started_ns_{0};  // of the running collection
  std::atomic<uint64_t> dropped_{0};
  // Set by bind before `bound_` is released; read by the callbacks after acquiring it.
  std::atomic<bool> bound_{false};
  int collector_count_ = 0;  // one past the highest collector number bound; gaps have no counter
  const volatile int64_t* invocations_[kMaxCollectors] = {};
  int64_t seen_invocations_[kMaxCollectors] = {};  // at the last finish (VM thread)
  std::string names_[kMaxCollectors];
  uint32_t causeless_ = 0;  // collectors HotSpot gives no cause: its concurrent cycles' pauses
  const volatile char* cause_ = nullptr;
  size_t cause_capacity_ = 0;
  const volatile char* last_cause_ = nullptr;
  size_t last_cause_capacity_ = 0;
};

}  // namespace stackscope::agent

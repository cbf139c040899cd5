// Status reports: process CPU load, GC count and time, heap, live threads.
#pragma once

#include <jni.h>

#include <atomic>
#include <cstdint>

#include "format/records.h"

namespace stackscope::agent {

// Fed by the GarbageCollectionStart/Finish callbacks, which run inside a GC where no JVMTI
// or JNI call is allowed: atomics only.
class GcCounters {
 public:
  void onStart(int64_t now_ns) { start_ns_.store(now_ns, std::memory_order_relaxed); }
  void onFinish(int64_t now_ns) {
    time_ns_.fetch_add(static_cast<uint64_t>(now_ns - start_ns_.load(std::memory_order_relaxed)),
                       std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  uint64_t timeNs() const { return time_ns_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> start_ns_{0};
  std::atomic<uint64_t> count_{0};
  std::atomic<uint64_t> time_ns_{0};
};

class StatusSampler {
 public:
  explicit StatusSampler(const GcCounters& gc) : gc_(gc) {}

  // Live phase: looks up java.lang.Runtime for the heap figures, and starts the CPU clock.
  void init(JNIEnv* jni, int64_t now_ns);
  // A status report at recording time `time_ns` (monotonic `now_ns`); CPU load is over the
  // time since the previous report.
  format::StatusRecord take(JNIEnv* jni, int64_t now_ns, int64_t time_ns, uint32_t live_threads);

 private:
  void readHeap(JNIEnv* jni, format::StatusRecord& status);

  const GcCounters& gc_;
  jclass runtime_class_ = nullptr;  // global reference
  jmethodID get_runtime_ = nullptr;
  jmethodID total_memory_ = nullptr;
  jmethodID free_memory_ = nullptr;
  int64_t last_wall_ns_ = 0;
  int64_t last_cpu_ns_ = 0;
};

}  // namespace stackscope::agent

#include "agent/thread_metrics.h"

#include <sys/types.h>

#include "agent/clocks.h"
#include "format/records.h"

namespace stackscope::agent {

namespace {

std::atomic<uint32_t> g_metrics{0};
std::atomic<const AllocationCounter*> g_counter{nullptr};

// HotSpot takes a TLAB's used bytes as valid only below its largest TLAB; a reading torn by a
// refill in progress (top from the new buffer, start from the old) is left out the same way.
constexpr int64_t kMaxTlabBytes = int64_t{1} << 34;

// The growth of a counter since `base`, which moves up to `now`. Never down: a reading torn by
// a TLAB retiring (its bytes counted in both places, or in neither) is then taken back by the
// readings after it instead of being counted twice.
uint64_t grown(int64_t& base, int64_t now) {
  if (now < 0) return 0;
  if (base < 0) {
    base = now;
    return 0;
  }
  if (now <= base) return 0;
  const auto delta = static_cast<uint64_t>(now - base);
  base = now;
  return delta;
}

}  // namespace

bool AllocationCounter::bind(const VmStructs& vm, int64_t env_offset) {
  const int64_t tlab = vm.fieldOffset("Thread", "_tlab");
  const int64_t start = vm.fieldOffset("ThreadLocalAllocBuffer", "_start");
  const int64_t top = vm.fieldOffset("ThreadLocalAllocBuffer", "_top");
  allocated_ = vm.fieldOffset("Thread", "_allocated_bytes");
  if (env_offset <= 0 || allocated_ < 0 || vm.fieldSize("Thread", "_allocated_bytes") != 8 || tlab < 0 || start < 0 ||
      top < 0) {
    allocated_ = -1;
    return false;
  }
  env_offset_ = env_offset;
  tlab_start_ = tlab + start;
  tlab_top_ = tlab + top;
  return true;
}

int64_t AllocationCounter::allocatedBytes(JNIEnv* env) const {
  if (allocated_ < 0 || !env) return -1;
  const uintptr_t thread = reinterpret_cast<uintptr_t>(env) - static_cast<uintptr_t>(env_offset_);
  const int64_t retired = *reinterpret_cast<const volatile int64_t*>(thread + allocated_);
  const uintptr_t start = *reinterpret_cast<const volatile uintptr_t*>(thread + tlab_start_);
  const uintptr_t top = *reinterpret_cast<const volatile uintptr_t*>(thread + tlab_top_);
  const int64_t used = start != 0 && top >= start ? static_cast<int64_t>(top - start) : 0;
  return retired + (used < kMaxTlabBytes ? used : 0);
}

MetricDeltas takeDeltas(MetricBase& base, const MetricBase& now) {
  MetricDeltas deltas;
  // Whole microseconds of each reading: the deltas add up to the clock's last microsecond.
  int64_t base_us = base.cpu_ns < 0 ? -1 : base.cpu_ns / 1000;
  deltas.cpu_us = grown(base_us, now.cpu_ns < 0 ? -1 : now.cpu_ns / 1000);
  if (now.cpu_ns > base.cpu_ns) base.cpu_ns = now.cpu_ns;
  deltas.alloc_bytes = grown(base.allocated, now.allocated);
  return deltas;
}

void setSampleMetrics(uint32_t metrics, const AllocationCounter* counter) {
  g_counter.store(counter, std::memory_order_release);
  g_metrics.store(metrics, std::memory_order_release);
}

uint32_t sampleMetrics() { return g_metrics.load(std::memory_order_acquire); }

MetricBase readOwnCounters(JNIEnv* env) {
  const uint32_t metrics = sampleMetrics();
  MetricBase now;
  if (metrics & format::kSampleCpuTime) now.cpu_ns = currentThreadCpuTimeNs();
  const AllocationCounter* counter = g_counter.load(std::memory_order_acquire);
  if ((metrics & format::kSampleAllocBytes) && counter) now.allocated = counter->allocatedBytes(env);
  return now;
}

MetricBase readThreadCounters(pid_t tid) {
  MetricBase now;
  if ((sampleMetrics() & format::kSampleCpuTime) && tid != 0) now.cpu_ns = threadCpuTimeNs(tid);
  return now;
}

}  // namespace stackscope::agent

#include "agent/vm_pauses.h"

#include <algorithm>

#include "agent/perf_data.h"

namespace stackscope::agent {

void GcClock::onStart(int64_t now_ns) {
  sequence_.fetch_add(1, std::memory_order_acq_rel);
  start_ns_.store(std::max<int64_t>(now_ns, 1), std::memory_order_relaxed);
  sequence_.fetch_add(1, std::memory_order_release);
}

void GcClock::onFinish(int64_t now_ns) {
  const int64_t start = start_ns_.load(std::memory_order_relaxed);
  sequence_.fetch_add(1, std::memory_order_acq_rel);
  if (start != 0 && now_ns > start) {
    total_ns_.fetch_add(static_cast<uint64_t>(now_ns - start), std::memory_order_relaxed);
    last_start_ns_.store(start, std::memory_order_relaxed);
    last_end_ns_.store(now_ns, std::memory_order_relaxed);
  }
  start_ns_.store(0, std::memory_order_relaxed);
  sequence_.fetch_add(1, std::memory_order_release);
  count_.fetch_add(1, std::memory_order_relaxed);
}

int64_t GcClock::timeNsUntil(int64_t now_ns) const {
  for (;;) {
    const uint32_t before = sequence_.load(std::memory_order_acquire);
    const int64_t start = start_ns_.load(std::memory_order_relaxed);
    const auto total = static_cast<int64_t>(total_ns_.load(std::memory_order_relaxed));
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((before & 1) == 0 && sequence_.load(std::memory_order_relaxed) == before) {
      return total + (start != 0 && now_ns > start ? now_ns - start : 0);
    }
  }
}

bool GcClock::activeAt(int64_t at_ns) const {
  for (;;) {
    const uint32_t before = sequence_.load(std::memory_order_acquire);
    const int64_t start = start_ns_.load(std::memory_order_relaxed);
    const int64_t last_start = last_start_ns_.load(std::memory_order_relaxed);
    const int64_t last_end = last_end_ns_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((before & 1) == 0 && sequence_.load(std::memory_order_relaxed) == before) {
      return (start != 0 && start <= at_ns) || (last_end != 0 && last_start <= at_ns && at_ns < last_end);
    }
  }
}

bool SafepointCounters::bind(const char* base, size_t capacity) {
  begun_ = sync_ticks_ = operation_ticks_ = nullptr;
  const PerfMemoryBlock block{base, capacity};
  const volatile int64_t* begun = findLongCounter(block, "sun.rt.safepoints");
  const volatile int64_t* sync = findLongCounter(block, "sun.rt.safepointSyncTime");
  const volatile int64_t* operation = findLongCounter(block, "sun.rt.safepointTime");
  if (!begun || !sync || !operation) return false;
  // The tick rate is published later in the VM's start than the agent looks; on Linux the
  // ticks are nanoseconds (os::elapsed_frequency).
  const volatile int64_t* frequency = findLongCounter(block, "sun.os.hrt.frequency");
  ticks_per_second_ = frequency && *frequency > 0 ? *frequency : 1'000'000'000;
  sync_ticks_ = sync;
  operation_ticks_ = operation;
  begun_ = begun;
  return true;
}

bool SafepointCounters::bind(const VmStructs& vm) {
  const PerfMemoryBlock block = perfMemoryOf(vm);
  return bind(block.base, block.capacity);
}

uint64_t SafepointCounters::begun() const { return begun_ ? static_cast<uint64_t>(*begun_) : 0; }

int64_t SafepointCounters::stoppedNs() const {
  if (!begun_) return 0;
  const int64_t ticks = *sync_ticks_ + *operation_ticks_;
  if (ticks_per_second_ == 1'000'000'000) return ticks;
  return static_cast<int64_t>(static_cast<__int128>(ticks) * 1'000'000'000 / ticks_per_second_);
}

StoppedTicks stoppedTicks(uint64_t missed, int64_t gc_ns, int64_t stopped_ns, int64_t interval_ns,
                          uint64_t gc_ticks_given) {
  // To the nearest tick: a pause covers the ticks whose times fall in it, and a late wake
  // rounds the same way (a tick is missed once its time has passed).
  auto ticks = [interval_ns](int64_t ns) {
    return ns <= 0 ? uint64_t{0} : static_cast<uint64_t>((ns + interval_ns / 2) / interval_ns);
  };
  StoppedTicks out;
  const uint64_t gc = ticks(gc_ns);
  out.gc = std::min(missed, gc > gc_ticks_given ? gc - gc_ticks_given : 0);
  // The safepoint counters include the GCs' own pauses.
  out.safepoint = std::min(missed - out.gc, ticks(stopped_ns - gc_ns));
  return out;
}

}  // namespace stackscope::agent

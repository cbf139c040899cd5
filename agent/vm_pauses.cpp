#include "agent/vm_pauses.h"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace stackscope::agent {

void GcClock::onStart(int64_t now_ns) {
  sequence_.fetch_add(1, std::memory_order_acq_rel);
  start_ns_.store(std::max<int64_t>(now_ns, 1), std::memory_order_relaxed);
  sequence_.fetch_add(1, std::memory_order_release);
}

void GcClock::onFinish(int64_t now_ns) {
  const int64_t start = start_ns_.load(std::memory_order_relaxed);
  sequence_.fetch_add(1, std::memory_order_acq_rel);
  if (start != 0 && now_ns > start) total_ns_.fetch_add(static_cast<uint64_t>(now_ns - start), std::memory_order_relaxed);
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

namespace {

// HotSpot's perfMemory.hpp: the block starts with a PerfDataPrologue, and its entries follow
// each other from entry_offset, every one with its length, its name and its value at offsets
// from its own start.
struct Prologue {
  int32_t magic;
  int8_t byte_order;
  int8_t major_version;
  int8_t minor_version;
  int8_t accessible;
  int32_t used;
  int32_t overflow;
  int64_t mod_time_stamp;
  int32_t entry_offset;
  int32_t num_entries;
};
struct Entry {
  int32_t entry_length;
  int32_t name_offset;
  int32_t vector_length;
  int8_t data_type;
  int8_t flags;
  int8_t data_units;
  int8_t data_variability;
  int32_t data_offset;
};

// The value of the scalar long counter `name`, or nullptr. Every offset is checked against
// the block: a layout this code does not expect finds nothing rather than reading astray.
const volatile int64_t* findLongCounter(const char* base, size_t capacity, std::string_view name) {
  Prologue prologue;
  if (capacity < sizeof prologue) return nullptr;
  std::memcpy(&prologue, base, sizeof prologue);
  const size_t used = std::min<size_t>(capacity, prologue.used > 0 ? static_cast<size_t>(prologue.used) : 0);
  size_t at = prologue.entry_offset > 0 ? static_cast<size_t>(prologue.entry_offset) : used;
  for (int32_t i = 0; i < prologue.num_entries && at + sizeof(Entry) <= used; ++i) {
    Entry entry;
    std::memcpy(&entry, base + at, sizeof entry);
    if (entry.entry_length <= 0 || at + static_cast<size_t>(entry.entry_length) > used) return nullptr;
    const size_t end = at + static_cast<size_t>(entry.entry_length);
    const size_t name_at = at + static_cast<size_t>(std::max(entry.name_offset, 0));
    const size_t data_at = at + static_cast<size_t>(std::max(entry.data_offset, 0));
    if (entry.data_type == 'J' && entry.vector_length == 0 && data_at % alignof(int64_t) == 0 &&
        data_at + sizeof(int64_t) <= end && name_at + name.size() < end &&
        std::memcmp(base + name_at, name.data(), name.size()) == 0 && base[name_at + name.size()] == '\0') {
      return reinterpret_cast<const volatile int64_t*>(base + data_at);
    }
    at = end;
  }
  return nullptr;
}

}  // namespace

bool SafepointCounters::bind(const char* base, size_t capacity) {
  begun_ = sync_ticks_ = operation_ticks_ = nullptr;
  if (!base || reinterpret_cast<uintptr_t>(base) % alignof(int64_t) != 0) return false;
  const volatile int64_t* begun = findLongCounter(base, capacity, "sun.rt.safepoints");
  const volatile int64_t* sync = findLongCounter(base, capacity, "sun.rt.safepointSyncTime");
  const volatile int64_t* operation = findLongCounter(base, capacity, "sun.rt.safepointTime");
  if (!begun || !sync || !operation) return false;
  // The tick rate is published later in the VM's start than the agent looks; on Linux the
  // ticks are nanoseconds (os::elapsed_frequency).
  const volatile int64_t* frequency = findLongCounter(base, capacity, "sun.os.hrt.frequency");
  ticks_per_second_ = frequency && *frequency > 0 ? *frequency : 1'000'000'000;
  sync_ticks_ = sync;
  operation_ticks_ = operation;
  begun_ = begun;
  return true;
}

bool SafepointCounters::bind(const VmStructs& vm) {
  const auto* start = static_cast<char* const*>(vm.staticAddress("PerfMemory", "_start"));
  const auto* capacity = static_cast<const size_t*>(vm.staticAddress("PerfMemory", "_capacity"));
  return start && capacity && bind(*start, *capacity);
}

uint64_t SafepointCounters::begun() const { return begun_ ? static_cast<uint64_t>(*begun_) : 0; }

int64_t SafepointCounters::stoppedNs() const {
  if (!begun_) return 0;
  const int64_t ticks = *sync_ticks_ + *operation_ticks_;
  if (ticks_per_second_ == 1'000'000'000) return ticks;
  return static_cast<int64_t>(static_cast<__int128>(ticks) * 1'000'000'000 / ticks_per_second_);
}

StoppedTicks stoppedTicks(uint64_t missed, int64_t gc_ns, int64_t stopped_ns, int64_t interval_ns) {
  // To the nearest tick: a pause covers the ticks whose times fall in it, and a late wake
  // rounds the same way (a tick is missed once its time has passed).
  auto ticks = [interval_ns](int64_t ns) {
    return ns <= 0 ? uint64_t{0} : static_cast<uint64_t>((ns + interval_ns / 2) / interval_ns);
  };
  StoppedTicks out;
  out.gc = std::min(missed, ticks(gc_ns));
  // The safepoint counters include the GCs' own pauses.
  out.safepoint = std::min(missed - out.gc, ticks(stopped_ns - gc_ns));
  return out;
}

}  // namespace stackscope::agent

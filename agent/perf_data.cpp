#include "agent/perf_data.h"

#include <algorithm>
#include <cstring>

namespace stackscope::agent {

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

// The entry named `name` of type `type` ('J' long, 'B' byte vector): where its data starts,
// and how many bytes it has up to the entry's end. Null when absent.
const char* findEntry(const PerfMemoryBlock& block, std::string_view name, char type, size_t& data_bytes) {
  const char* base = block.base;
  Prologue prologue;
  if (!base || block.capacity < sizeof prologue) return nullptr;
  std::memcpy(&prologue, base, sizeof prologue);
  const size_t used = std::min<size_t>(block.capacity, prologue.used > 0 ? static_cast<size_t>(prologue.used) : 0);
  size_t at = prologue.entry_offset > 0 ? static_cast<size_t>(prologue.entry_offset) : used;
  for (int32_t i = 0; i < prologue.num_entries && at + sizeof(Entry) <= used; ++i) {
    Entry entry;
    std::memcpy(&entry, base + at, sizeof entry);
    if (entry.entry_length <= 0 || at + static_cast<size_t>(entry.entry_length) > used) return nullptr;
    const size_t end = at + static_cast<size_t>(entry.entry_length);
    const size_t name_at = at + static_cast<size_t>(std::max(entry.name_offset, 0));
    const size_t data_at = at + static_cast<size_t>(std::max(entry.data_offset, 0));
    if (entry.data_type == type && data_at < end && name_at + name.size() < end &&
        std::memcmp(base + name_at, name.data(), name.size()) == 0 && base[name_at + name.size()] == '\0') {
      data_bytes = end - data_at;
      return base + data_at;
    }
    at = end;
  }
  return nullptr;
}

}  // namespace

PerfMemoryBlock perfMemoryOf(const VmStructs& vm) {
  const auto* start = static_cast<char* const*>(vm.staticAddress("PerfMemory", "_start"));
  const auto* capacity = static_cast<const size_t*>(vm.staticAddress("PerfMemory", "_capacity"));
  if (!start || !capacity) return {};
  return {*start, *capacity};
}

const volatile int64_t* findLongCounter(const PerfMemoryBlock& block, std::string_view name) {
  if (reinterpret_cast<uintptr_t>(block.base) % alignof(int64_t) != 0) return nullptr;
  size_t bytes = 0;
  const char* data = findEntry(block, name, 'J', bytes);
  if (!data || bytes < sizeof(int64_t) || reinterpret_cast<uintptr_t>(data) % alignof(int64_t) != 0) return nullptr;
  return reinterpret_cast<const volatile int64_t*>(data);
}

const volatile char* findStringCounter(const PerfMemoryBlock& block, std::string_view name, size_t& capacity) {
  size_t bytes = 0;
  const char* data = findEntry(block, name, 'B', bytes);
  if (!data || bytes == 0) return nullptr;
  capacity = bytes;
  return data;
}

void copyPerfString(const volatile char* text, size_t capacity, char* out, size_t size) {
  if (size == 0) return;
  size_t i = 0;
  for (; text && i + 1 < size && i < capacity && text[i] != '\0'; ++i) out[i] = text[i];
  out[i] = '\0';
}

}  // namespace stackscope::agent

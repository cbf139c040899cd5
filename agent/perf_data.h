// HotSpot's PerfData counters (the ones `jcmd PerfCounter.print` shows), read in place from
// the PerfMemory block that VMStructs points to: plain memory the VM updates as it runs, so
// reading them needs no JVMTI or JNI call and is allowed anywhere, a GC callback included.
// -XX:-UsePerfData leaves the block out: then nothing is found.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/vm_structs.h"

namespace stackscope::agent {

struct PerfMemoryBlock {
  const char* base = nullptr;
  size_t capacity = 0;
};

// Through VMStructs' PerfMemory::_start and _capacity; base null when there is none.
PerfMemoryBlock perfMemoryOf(const VmStructs& vm);

// The value of the scalar long counter `name`, or nullptr. Every offset is checked against
// the block: a layout this code does not expect finds nothing rather than reading astray.
const volatile int64_t* findLongCounter(const PerfMemoryBlock& block, std::string_view name);

// A string counter (a byte vector holding NUL-terminated text), or nullptr; `capacity` gets
// its size in bytes.
const volatile char* findStringCounter(const PerfMemoryBlock& block, std::string_view name, size_t& capacity);

// Copies a string counter into `out` (size bytes, always NUL-terminated). Only reads: fine
// inside a GC callback, where the VM may be the one changing it (a torn copy is possible
// only while the VM writes it, which it does at a collection's start and end).
void copyPerfString(const volatile char* text, size_t capacity, char* out, size_t size);

}  // namespace stackscope::agent

#include "agent/code_regions.h"

#include <cctype>
#include <cstring>
#include <string>

namespace stackscope::agent {

namespace {

// HotSpot names each adapter "I2C/C2I adapters(0xbbbebebe)": the suffix is a fingerprint of
// the method signature it adapts, noise to a reader that would split one kind of code into
// dozens of rows. A trailing "(0x<hex>)" is dropped.
std::string withoutFingerprint(const char* name) {
  std::string text = name ? name : "unnamed";
  const size_t open = text.rfind("(0x");
  if (open == std::string::npos || open == 0 || text.back() != ')') return text;
  for (size_t i = open + 3; i + 1 < text.size(); ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(text[i]))) return text;
  }
  text.erase(open);
  return text;
}

// Code that compiled Java code enters by a call with a debug record at its return address:
// dispatch stubs, adapters, call resolution and inline-cache misses, C2's and C1's runtime
// stubs (a monitor enter's, an allocation's), the uncommon trap, exception and deoptimization
// blobs. The rest (StubRoutines' intrinsics) is called as a leaf, without one. A name wrongly
// listed here only keeps the plain walk from the return address.
bool namesJavaCallEntry(const std::string& name) {
  for (const char* part : {"vtable stub", "itable stub", "adapter", "resolve", "ic_miss", "wrong_method", "_Java",
                           "Runtime", "Blob", "blob", "ncommon", "eopt", "xception", "handler"}) {
    if (name.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

CodeRegions::CodeRegions() : regions_(new Region[kCapacity]) {}

void CodeRegions::add(const char* name, uintptr_t start, uint64_t length) {
  if (length == 0 || start + length < start) return;
  std::lock_guard<std::mutex> lock(add_lock_);
  const uint32_t count = count_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < count; ++i) {
    if (regions_[i].start == start && regions_[i].end == start + length) return;
  }
  if (count == kCapacity) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const std::string text = withoutFingerprint(name);
  regions_[count] = {start, start + length, strdup(text.c_str()), namesJavaCallEntry(text)};
  count_.store(count + 1, std::memory_order_release);  // the entry is complete before it is seen
}

// A linear scan: it runs only for samples whose stack walk failed in generated code, and the
// entries are contiguous and small (24 bytes).
int32_t CodeRegions::find(uintptr_t pc) const {
  const uint32_t count = count_.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < count; ++i) {
    if (pc >= regions_[i].start && pc < regions_[i].end) return static_cast<int32_t>(i);
  }
  return -1;
}

bool CodeRegions::enteredByJavaCall(int32_t index) const {
  return index >= 0 && static_cast<uint32_t>(index) < size() && regions_[index].java_call;
}

const char* CodeRegions::name(int32_t index) const {
  if (index < 0 || static_cast<uint32_t>(index) >= size()) return "unknown";
  return regions_[index].name;
}

}  // namespace stackscope::agent

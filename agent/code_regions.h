// The JVM's generated code that is not a Java method: stubs (arraycopy, crypto and string
// intrinsics, vtable/itable dispatch), adapters, the interpreter. JVMTI announces each region
// with a DynamicCodeGenerated event (name, start, length). A sample whose pc lies in one
// shows it as a frame of its own, "[stub] jbyte_arraycopy", above the Java method that
// called it, instead of losing the sample or crediting the wrong method.
//
// SIGNAL SAFETY: find() runs in the SIGPROF handler. Regions are appended to a fixed array
// that is never moved or freed and published by a release store of the count, so find()
// reads without locks or allocation. add() and name() run outside signal handlers.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace stackscope::agent {

class CodeRegions {
 public:
  // HotSpot announces a few hundred regions at start-up plus one per vtable/itable stub;
  // beyond this many, new regions are dropped (and counted) rather than grow the array a
  // signal handler may be reading.
  static constexpr uint32_t kCapacity = 8192;

  CodeRegions();
  CodeRegions(const CodeRegions&) = delete;
  CodeRegions& operator=(const CodeRegions&) = delete;

  // Records [start, start + length) under `name` (copied, without an adapter's signature
  // fingerprint "(0x…)"). A region already known (JVMTI's GenerateEvents replays them) or an
  // empty one is ignored.
  void add(const char* name, uintptr_t start, uint64_t length);

  // The index of the region holding pc, or -1. Async-signal-safe.
  int32_t find(uintptr_t pc) const;

  // Whether compiled code enters region `index` by a Java call (a vtable or itable stub, an
  // adapter, call resolution), whose return address has a debug record of its own, rather
  // than as a leaf (an intrinsic's stub). Async-signal-safe.
  bool enteredByJavaCall(int32_t index) const;

  // The name of region `index` (from find), valid for the life of the process.
  const char* name(int32_t index) const;

  uint32_t size() const { return count_.load(std::memory_order_acquire); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  struct Region {
    uintptr_t start;
    uintptr_t end;
    const char* name;
    bool java_call;  // enteredByJavaCall
  };

  Region* regions_;  // kCapacity entries, never freed: a late signal may still read them
  std::atomic<uint32_t> count_{0};
  std::atomic<uint64_t> dropped_{0};
  std::mutex add_lock_;  // DynamicCodeGenerated may arrive on several threads at once
};

}  // namespace stackscope::agent

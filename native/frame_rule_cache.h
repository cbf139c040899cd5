// A bounded memo of frameRuleAt's answers by pc, for the signal handler's native walk: a
// thread's native stacks repeat (a JVM compiler or GC thread returns to the same call sites
// again and again), and an answer costs a binary search of the module's search table, an FDE
// and its CIE decoded and their instructions run: about 130 ns a frame with warm caches and
// several µs cold, at one walk a millisecond (docs/benchmarks.md, the CFI walk's cost).
//
// Direct-mapped by pc, each entry under its own sequence counter (a seqlock): a reader never
// waits, it takes an entry only when the counter was even and unchanged across its reads; a
// writer that finds the entry being written (another thread, or the handler it interrupted)
// does not wait either, it leaves the answer unstored. Lock-free and async-signal-safe; no
// allocation. Each answer is stored with the generation of the modules' table it came from
// (unwind_modules.h): a table published after a library was loaded or unloaded does not see
// the answers of the one before.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "native/cfi_rules.h"

namespace stackscope::native {

class FrameRuleCache {
 public:
  // The answer stored for pc under `generation`: true with result (and rule when Found).
  bool find(uint64_t generation, uintptr_t pc, CfiResult& result, FrameRule& rule) const;
  // Stores frameRuleAt's answer for pc, replacing the entry's earlier one; an answer whose
  // offsets do not fit the entry (a frame of 2 GiB or more) is not stored.
  void store(uint64_t generation, uintptr_t pc, CfiResult result, const FrameRule& rule);

  static constexpr size_t kEntries = 2048;  // 64 KiB; a JVM's compiler stacks hold a few thousand pcs

 private:
  struct Entry {
    std::atomic<uint64_t> sequence{0};  // odd while being written
    std::atomic<uint64_t> pc{0};
    std::atomic<uint64_t> generation{0};  // 0: never stored (generations start at 1)
    std::atomic<uint64_t> answer{0};      // result and rule, packed
  };
  Entry entries_[kEntries];
};

}  // namespace stackscope::native

// The unwinding tables (cfi_rules.h) of the modules loaded in this process, for a signal
// handler to find by pc: one entry per executable segment, sorted by address, from the dynamic
// loader's list (dl_iterate_phdr; program headers and tables are read in memory, no file).
//
// Published atomically: a handler loads the current table and uses it as it is. A table is
// never freed — a handler may still hold one that a refresh replaced — and a refresh builds a
// new one only when the loader's count of loads or unloads changed, so they are as many as the
// times libraries were loaded while the profiler ran (a few KiB each). A library unloaded
// (dlclose) after its table was taken and before a refresh is the one case left: its frames
// can no longer be on a stack, so the walk meets its range only through a wrong return address.
#pragma once

#include <cstddef>
#include <cstdint>

#include "native/cfi_rules.h"
#include "native/frame_rule_cache.h"

namespace stackscope::native {

struct UnwindModule {
  uintptr_t start = 0;  // an executable segment, [start, end)
  uintptr_t end = 0;
  CfiTables tables;     // bytes null: the module has no .eh_frame_hdr
};

struct UnwindModules {
  const UnwindModule* modules = nullptr;  // sorted by start, not overlapping
  size_t count = 0;
  // The memo of rules by pc (frame_rule_cache.h) and this table's generation in it: set on the
  // published tables; null: every rule is read from the tables.
  FrameRuleCache* cache = nullptr;
  uint64_t generation = 0;
  // The module whose executable segment holds pc; null if none. Async-signal-safe.
  const UnwindModule* find(uintptr_t pc) const;
  // frameRuleAt(module.tables, pc, rule), through the memo when there is one. Async-signal-safe.
  CfiResult ruleAt(const UnwindModule& module, uintptr_t pc, FrameRule& rule) const;
};

// Reads the loader's list again if a library was loaded or unloaded since the last read, and
// publishes the table. Not for signal handlers (the loader's lock, allocation); thread-safe.
void refreshLoadedUnwindModules();
// The table last published; null before the first refresh. Async-signal-safe.
const UnwindModules* loadedUnwindModules();

}  // namespace stackscope::native

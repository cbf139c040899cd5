// Kernel addresses (the kernel part of a perf callchain) named from /proc/kallsyms. Its
// addresses read as 0 unless kptr_restrict allows them to the reader (root, or
// kernel.kptr_restrict=0): then nothing is named and frames show as "[kernel]+0x…".
// Not thread-safe, not for signal handlers (reads a 5 MB file at the first kernel address).
#pragma once

#include <cstdint>
#include <string>

#include "native/symbol_table.h"

namespace stackscope::native {

class KernelSymbols {
 public:
  // x86-64 gives the kernel the upper half of the address space.
  static bool isKernelAddress(uint64_t address) { return address >= 0xffff800000000000ull; }

  SymbolTable::Match find(uint64_t address);

  // Parses kallsyms text (the buffer's names are cut in place and stay in the table): its
  // functions (types t, T, w, W) with a non-zero address. Exposed for the tests.
  void load(std::string text);

 private:
  bool loaded_ = false;
  std::string text_;
  SymbolTable functions_;
};

}  // namespace stackscope::native

#include "native/symbol_table.h"

#include <algorithm>
#include <cstring>

namespace stackscope::native {

void SymbolTable::add(uint64_t start, uint64_t size, const char* name, Binding binding) {
  functions_.push_back({start, size == 0 ? start : start + size, name, binding});
}

void SymbolTable::finish() {
  // At one address, the best-bound name first (glibc's __getpid before its weak alias getpid),
  // then one that is not glibc's internal alias (__GI___lll_lock_wait of __lll_lock_wait,
  // both local in its debug file's .symtab), then the longest, then the first by name (the same
  // choice every run); only that one is kept.
  std::sort(functions_.begin(), functions_.end(), [](const Function& a, const Function& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.binding != b.binding) return a.binding > b.binding;
    const bool a_internal = std::strncmp(a.name, "__GI_", 5) == 0, b_internal = std::strncmp(b.name, "__GI_", 5) == 0;
    if (a_internal != b_internal) return b_internal;
    if (a.end != b.end) return a.end > b.end;
    return std::strcmp(a.name, b.name) < 0;
  });
  functions_.erase(std::unique(functions_.begin(), functions_.end(),
                               [](const Function& a, const Function& b) { return a.start == b.start; }),
                   functions_.end());
  // A sizeless symbol reaches to the next one; the last reaches one byte (no bound is known).
  for (size_t i = 0; i < functions_.size(); i++) {
    if (functions_[i].end != functions_[i].start) continue;
    functions_[i].end = i + 1 < functions_.size() ? functions_[i + 1].start : functions_[i].start + 1;
  }
}

SymbolTable::Match SymbolTable::find(uint64_t address) const {
  auto after = std::upper_bound(functions_.begin(), functions_.end(), address,
                                [](uint64_t value, const Function& f) { return value < f.start; });
  if (after == functions_.begin()) return {};
  const Function& candidate = *(after - 1);
  if (address >= candidate.end) return {};  // between functions: padding, or a stripped one
  return {candidate.name, address - candidate.start};
}

}  // namespace stackscope::native

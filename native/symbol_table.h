// The function symbols of one module, sorted by address for a binary search. libdw's own
// dwfl_module_addrinfo scans the whole symbol table on every call (2.7 ms an address in
// libjvm.so's 100k+ symbols); this index is built once per module and answers in O(log n).
#pragma once

#include <cstdint>
#include <vector>

namespace stackscope::native {

class SymbolTable {
 public:
  enum class Binding { kLocal, kWeak, kGlobal };  // ranked: the higher names a shared address

  // `name` must outlive the table (libdw's string table of the module). A size of 0 (an
  // assembler label) stands for everything up to the next symbol.
  void add(uint64_t start, uint64_t size, const char* name, Binding binding);
  // Sorts; call once after the last add().
  void finish();

  struct Match {
    const char* name = nullptr;  // null: no function holds the address
    uint64_t offset = 0;
  };
  Match find(uint64_t address) const;

 private:
  struct Function {
    uint64_t start;
    uint64_t end;
    const char* name;
    Binding binding;
  };
  std::vector<Function> functions_;
};

}  // namespace stackscope::native

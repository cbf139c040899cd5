// Names native code addresses of one process: function (demangled), module, offsets. Built on
// elfutils' libdwfl, which reads the process's module list from /proc/PID/maps and each
// module's ELF symbol table (.symtab when the file has one, as Debian's libjvm.so does, else
// .dynsym). A stripped module's full .symtab comes from its separate debug file when a Debian
// -dbg package installed one (/usr/lib/debug/.build-id/NN/REST.debug: libc6-dbg for libc),
// found by build id at that one path (native/debug_symbol_file.h); no disk scans of
// /usr/lib/debug and no debuginfod network requests from inside a profiled process. An
// address no symbol names is grouped by the function its .eh_frame FDE covers
// (native/eh_frame_functions.h) and shown as "module+0xSTART". Kernel addresses (perf
// callchains) are named from /proc/kallsyms (native/kernel_symbols.h), read at the first one
// (about 150 ms here).
//
// NOT thread-safe and NOT async-signal-safe: it allocates, opens files and takes libdw's
// locks. The agent calls it from its writer thread only; signal handlers record raw addresses.
//
// Cost, measured with tests/native_programs/symbolizer_cost on running JVMs, from outside and
// from inside (JDK 17 and 25; figures and commands in docs/benchmarks.md): creating a
// Symbolizer 0.3-0.6 ms (it reads /proc/PID/maps; module files are opened lazily); the first
// address in libjvm.so 27-90 ms (reads its .symtab and sorts its ~49k functions); then 3-7 us
// for each new address (binary search + demangling), 0.03 us for one seen before; about
// 10 MB more resident for libjvm.so's tables. 97% of addresses over libjvm.so's code get a name.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "native/debug_symbol_file.h"
#include "native/eh_frame_functions.h"
#include "native/kernel_symbols.h"
#include "native/symbol_table.h"

struct Dwfl;
struct Dwfl_Module;

namespace stackscope::native {

struct NativeSymbol {
  std::string function;        // demangled when it is a C++ name; empty when unknown
  std::string module;          // file basename ("libjvm.so", "libc.so.6"), "[vdso]", "[kernel]";
                               // empty when no module
  uint64_t offset = 0;         // pc - function start (when function_start_known)
  uint64_t module_offset = 0;  // pc as an address of the module's ELF file (what addr2line takes)
  uint64_t pc = 0;
  // The start of the function holding pc is known: it is named, or (function empty) its
  // bounds come from the module's .eh_frame.
  bool function_start_known = false;
};

// "function", else "module+0xSTART" for an unnamed function whose start is known (every
// address in it gets this one name), else "module+0xOFF" (module_offset), else "[unknown] 0xPC".
std::string display(const NativeSymbol& symbol);

// C++ symbol names demangled (abi::__cxa_demangle); any other name as it is. Only "_Z" names
// are given to the demangler: it would read a plain "f" as the type name "float".
std::string demangle(const char* name);

class Symbolizer {
 public:
  // How often, at most, an address in no known module makes it read the process's module
  // list again (a library dlopen'ed since, or JIT code: anonymous memory is never a module).
  static constexpr std::chrono::milliseconds kDefaultReportInterval{1000};

  // Separate debug files are looked for under `debug_root` only (tests give their own).
  explicit Symbolizer(pid_t pid, std::chrono::milliseconds report_interval = kDefaultReportInterval,
                      std::string debug_root = kDebianDebugRoot);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // False when the process's modules could not be read (no such process, no permission);
  // error() says why. symbolize() then names nothing, without failing.
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // For a return address, pass it minus 1: a call that ends a function returns to the first
  // byte of the next one. Cached per pc. A pc in no module is cached only when the module list was read fresh for
  // it, so a library mapped later is found once the rate limit allows a new read.
  // A library unmapped and another mapped at its addresses is not noticed (cache never dropped).
  NativeSymbol symbolize(uint64_t pc);

 private:
  bool reportModules();
  NativeSymbol lookup(uint64_t pc);
  NativeSymbol lookupKernel(uint64_t pc);
  // What is read of a module's files, at its first address.
  struct ModuleSymbols {
    SymbolTable table;
    DebugSymbolFile debug_file;                  // holds the names of `table` when it was found
    std::unique_ptr<EhFrameFunctions> unnamed;   // at the first address `table` does not name
  };
  ModuleSymbols& symbolsOf(Dwfl_Module* module);

  pid_t pid_;
  std::chrono::milliseconds report_interval_;
  std::chrono::steady_clock::time_point last_report_;
  Dwfl* dwfl_ = nullptr;
  std::string debug_root_;
  std::string error_;
  std::unordered_map<Dwfl_Module*, ModuleSymbols> modules_;  // built at a module's first address
  KernelSymbols kernel_;  // read at the first kernel address
  std::unordered_map<uint64_t, NativeSymbol> cache_;
};

}  // namespace stackscope::native

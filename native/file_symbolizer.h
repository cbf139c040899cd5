// Names native code addresses after the fact, from what a recording keeps of each frame: the
// module's file path and GNU build id with an ELF address of that file, or a kernel address
// with the boot it was taken in. The profiled process then pays for no symbol table: the
// front-end reads them when it reads the recording (the agent's writer used to build libjvm.so's
// table and read /proc/kallsyms in the JVM, 100-145 ms of its CPU per run).
//
// A module's functions come from its Debian debug file (by build id, as Symbolizer does), else
// its own .symtab, else its .dynsym; an address no symbol covers is grouped by its .eh_frame
// function ("module+0xSTART"). A file whose build id is not the recorded one (replaced since)
// names nothing: its frames keep "module+0xADDRESS". The vDSO has no file: it is read from this
// process's own, which is the same code when the boot is the same. Kernel addresses are named
// from /proc/kallsyms in the boot that recorded them only (addresses move at every boot).
//
// Not thread-safe; for the front-end, never a signal handler.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "native/debug_symbol_file.h"
#include "native/eh_frame_functions.h"
#include "native/kernel_symbols.h"
#include "native/symbol_table.h"
#include "native/symbolizer.h"

namespace stackscope::native {

// The pseudo-paths a recording gives code that is in no file.
inline constexpr const char* kVdsoModule = "[vdso]";
inline constexpr const char* kKernelModule = "[kernel]";

// The GNU build id of an ELF image in hex, empty when it has none.
std::string buildIdHex(Elf* elf);

class FileSymbolizer {
 public:
  // `boot_id`: the recording's; `debug_root`: where debug files are looked for (tests give
  // their own).
  explicit FileSymbolizer(std::string boot_id, std::string debug_root = kDebianDebugRoot);
  ~FileSymbolizer();
  FileSymbolizer(const FileSymbolizer&) = delete;
  FileSymbolizer& operator=(const FileSymbolizer&) = delete;

  // `module`: a path, kVdsoModule or kKernelModule; `build_id` in hex (empty: not checked).
  NativeSymbol symbolize(const std::string& module, const std::string& build_id, uint64_t address);

 private:
  struct Module {
    bool usable = false;         // the file is there, readable, and has the recorded build id
    DebugSymbolFile own_file;    // the module's file (its symbols unless a debug file had them)
    DebugSymbolFile debug_file;  // the separate debug file, when one was found
    SymbolTable table;
    std::unique_ptr<EhFrameFunctions> unnamed;  // at the first address `table` does not name
  };
  Module& moduleOf(const std::string& module, const std::string& build_id);
  Module& vdso();
  NativeSymbol lookup(Module& module, const std::string& name, uint64_t address);

  std::string boot_id_;
  std::string debug_root_;
  std::map<std::string, Module> modules_;  // by path + '\n' + build id
  std::unique_ptr<Module> vdso_;
  Elf* vdso_elf_ = nullptr;
  bool kernel_read_ = false;
  KernelSymbols kernel_;
};

}  // namespace stackscope::native

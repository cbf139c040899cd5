#include "native/symbolizer.h"

#include <cxxabi.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace stackscope::native {

namespace {

// libdw never looks for separate debug-info files: its standard search would scan
// /usr/lib/debug and, with DEBUGINFOD_URLS set, download over the network, from inside the
// profiled process (and it maps the file it finds). symbolsOf() looks at the one build-id path.
int noSeparateDebugInfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*,
                        GElf_Word, char**) {
  return -1;
}

// Opens a module's file for libdw with pread-based reading. libdw's own opener maps the whole
// file, and in the process being symbolized (the agent's own) that mapping shows in
// /proc/self/maps under the module's name: the next read of the module list would then take
// the module to span both copies and everything mapped between them, JIT code included.
// Names that are not paths ("[vdso: PID]") go to libdw's opener, which reads them from memory.
int findElfWithoutMapping(Dwfl_Module* module, void** userdata, const char* name, Dwarf_Addr base,
                          char** file_name, Elf** elf) {
  if (name[0] != '/') return dwfl_linux_proc_find_elf(module, userdata, name, base, file_name, elf);
  int fd = open(name, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  *elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (*elf == nullptr) {
    close(fd);
    return -1;
  }
  *file_name = strdup(name);  // libdw owns both the name and the fd from here
  return fd;
}

const Dwfl_Callbacks kProcessCallbacks = {
    .find_elf = findElfWithoutMapping,
    .find_debuginfo = noSeparateDebugInfo,
    .section_address = nullptr,
    .debuginfo_path = nullptr,
};

// A file's basename; libdw calls the kernel's vDSO "[vdso: PID]", which would make the same
// frame a different name in every run: it is "[vdso]", as in /proc/PID/maps.
std::string moduleName(const char* path) {
  if (std::strncmp(path, "[vdso", 5) == 0) return "[vdso]";
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// A .symtab name as a function's name: glibc's carries symbol versions
// ("pthread_cond_broadcast@@GLIBC_2.3.2"), which would also keep a C++ name from demangling.
std::string functionName(const char* symbol) {
  const char* at = std::strchr(symbol, '@');
  return at == nullptr || at == symbol ? demangle(symbol) : demangle(std::string(symbol, at).c_str());
}

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

}  // namespace

std::string demangle(const char* name) {
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string result = demangled;
  std::free(demangled);
  return result;
}

std::string display(const NativeSymbol& symbol) {
  if (!symbol.function.empty()) return symbol.function;
  if (!symbol.module.empty())
    return symbol.module + "+" +
           hex(symbol.function_start_known ? symbol.module_offset - symbol.offset : symbol.module_offset);
  return "[unknown] " + hex(symbol.pc);
}

Symbolizer::Symbolizer(pid_t pid, std::chrono::milliseconds report_interval, std::string debug_root)
    : pid_(pid), report_interval_(report_interval), debug_root_(std::move(debug_root)) {
  dwfl_ = dwfl_begin(&kProcessCallbacks);
  if (dwfl_ == nullptr) {
    error_ = std::string("libdw: ") + dwfl_errmsg(-1);
    return;
  }
  reportModules();
}

Symbolizer::~Symbolizer() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

// Reads /proc/PID/maps again. Modules already known (same file, same addresses) are kept with
// their loaded symbol tables; new ones are added, unmapped ones dropped.
bool Symbolizer::reportModules() {
  last_report_ = std::chrono::steady_clock::now();
  dwfl_report_begin(dwfl_);
  int result = dwfl_linux_proc_report(dwfl_, pid_);
  // A module gone from the list takes its symbol table (whose names point into its file) along.
  dwfl_report_end(
      dwfl_,
      [](Dwfl_Module* module, void*, const char*, Dwarf_Addr, void* self) -> int {
        static_cast<Symbolizer*>(self)->modules_.erase(module);
        return DWARF_CB_OK;
      },
      this);
  if (result == 0) {
    error_.clear();
    return true;
  }
  // A positive result is an errno value; -1 is a libdw error.
  error_ = "cannot read the modules of process " + std::to_string(pid_) + ": " +
           (result > 0 ? std::strerror(result) : dwfl_errmsg(-1));
  return false;
}

// Every function symbol that the module defines: from its separate debug file's .symtab when
// one is installed, else from its own .symtab (else .dynsym).
Symbolizer::ModuleSymbols& Symbolizer::symbolsOf(Dwfl_Module* module) {
  auto [entry, added] = modules_.try_emplace(module);
  ModuleSymbols& symbols = entry->second;
  SymbolTable& table = symbols.table;
  if (!added) return symbols;
  // Only for a module whose own file was opened: its build id then says which file it is
  // (a file replaced on disk since it was loaded has none, and no name either).
  GElf_Addr bias = 0;
  if (dwfl_module_getelf(module, &bias) != nullptr) {
    const unsigned char* build_id = nullptr;
    GElf_Addr build_id_address = 0;
    const int size = dwfl_module_build_id(module, &build_id, &build_id_address);
    if (symbols.debug_file.addFunctions(debugFilePath(debug_root_, build_id, size), bias, table)) {
      table.finish();
      return symbols;
    }
  }
  int count = dwfl_module_getsymtab(module);
  for (int i = 0; i < count; i++) {
    GElf_Sym elf_symbol;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    const char* name = dwfl_module_getsym_info(module, i, &elf_symbol, &address, &section, nullptr, nullptr);
    int type = GELF_ST_TYPE(elf_symbol.st_info);
    if (name == nullptr || name[0] == '\0' || section == SHN_UNDEF) continue;
    if (type != STT_FUNC && type != STT_GNU_IFUNC) continue;
    int binding = GELF_ST_BIND(elf_symbol.st_info);
    table.add(address, elf_symbol.st_size, name,
              binding == STB_GLOBAL ? SymbolTable::Binding::kGlobal
              : binding == STB_WEAK ? SymbolTable::Binding::kWeak
                                    : SymbolTable::Binding::kLocal);
  }
  table.finish();
  return symbols;
}

NativeSymbol Symbolizer::lookup(uint64_t pc) {
  NativeSymbol symbol;
  symbol.pc = pc;
  Dwfl_Module* module = dwfl_addrmodule(dwfl_, pc);
  if (module == nullptr) return symbol;

  Dwarf_Addr start = 0, end = 0;
  const char* name = dwfl_module_info(module, nullptr, &start, &end, nullptr, nullptr, nullptr, nullptr);
  // dwfl_addrmodule may answer with the module just below an address past its end (where the
  // dynamic loader puts the next library): that address is in no module known yet.
  if (pc < start || pc >= end) return symbol;
  symbol.module = moduleName(name ? name : "");
  // The ELF's own addresses are pc - bias; when its file cannot be opened, the offset from
  // where the module was mapped is the best there is.
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module, &bias);
  symbol.module_offset = elf ? pc - bias : pc - start;

  ModuleSymbols& symbols = symbolsOf(module);
  SymbolTable::Match match = symbols.table.find(pc);
  if (match.name != nullptr) {
    symbol.function = functionName(match.name);
    symbol.offset = match.offset;
    symbol.function_start_known = true;
    return symbol;
  }
  if (elf == nullptr) return symbol;
  if (!symbols.unnamed) symbols.unnamed = std::make_unique<EhFrameFunctions>(elf);
  const EhFrameFunctions::Range range = symbols.unnamed->find(symbol.module_offset);
  if (range.start != range.end) {
    symbol.offset = symbol.module_offset - range.start;
    symbol.function_start_known = true;
  }
  return symbol;
}

NativeSymbol Symbolizer::lookupKernel(uint64_t pc) {
  NativeSymbol symbol;
  symbol.pc = pc;
  symbol.module = "[kernel]";
  symbol.module_offset = pc;  // unnamed kernel frames keep their address
  SymbolTable::Match match = kernel_.find(pc);
  if (match.name != nullptr) {
    symbol.function = match.name;
    symbol.offset = match.offset;
    symbol.function_start_known = true;
  }
  return symbol;
}

NativeSymbol Symbolizer::symbolize(uint64_t pc) {
  auto cached = cache_.find(pc);
  if (cached != cache_.end()) return cached->second;

  NativeSymbol symbol;
  if (KernelSymbols::isKernelAddress(pc)) {
    symbol = lookupKernel(pc);
  } else if (dwfl_ != nullptr) {
    symbol = lookup(pc);
    if (symbol.module.empty()) {
      // Not in the modules read last: maybe a library loaded since. The answer is kept only
      // if the list was read fresh for it; otherwise a later call may find it.
      if (std::chrono::steady_clock::now() - last_report_ < report_interval_) return symbol;
      reportModules();
      symbol = lookup(pc);
    }
  }
  cache_.emplace(pc, symbol);
  return symbol;
}

}  // namespace stackscope::native

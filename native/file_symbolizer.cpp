#include "native/file_symbolizer.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "native/boot_id.h"

namespace stackscope::native {

namespace {

// A .symtab name as a function's name: glibc's carries symbol versions
// ("pthread_cond_broadcast@@GLIBC_2.3.2"), which would also keep a C++ name from demangling.
std::string functionName(const char* symbol) {
  const char* at = std::strchr(symbol, '@');
  return at == nullptr || at == symbol ? demangle(symbol) : demangle(std::string(symbol, at).c_str());
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The size of an ELF image in memory (the vDSO's): up to the end of its section headers, which
// the linker puts last.
size_t imageSize(const unsigned char* image) {
  if (std::memcmp(image, ELFMAG, SELFMAG) != 0 || image[EI_CLASS] != ELFCLASS64) return 0;
  Elf64_Ehdr native;
  std::memcpy(&native, image, sizeof native);
  return native.e_shoff + static_cast<size_t>(native.e_shnum) * native.e_shentsize;
}

}  // namespace

std::string buildIdHex(Elf* elf) {
  const void* bytes = nullptr;
  const ssize_t size = elf ? dwelf_elf_gnu_build_id(elf, &bytes) : -1;
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (ssize_t i = 0; i < size; ++i) {
    const auto byte = static_cast<const unsigned char*>(bytes)[i];
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

FileSymbolizer::FileSymbolizer(std::string boot_id, std::string debug_root)
    : boot_id_(std::move(boot_id)), debug_root_(std::move(debug_root)) {
  elf_version(EV_CURRENT);
}

FileSymbolizer::~FileSymbolizer() {
  if (vdso_elf_ != nullptr) elf_end(vdso_elf_);
}

FileSymbolizer::Module& FileSymbolizer::moduleOf(const std::string& path, const std::string& build_id) {
  auto [entry, added] = modules_.try_emplace(path + '\n' + build_id);
  Module& module = entry->second;
  if (!added) return module;
  SymbolTable own;
  module.own_file.addFunctions(path, 0, own, true);
  Elf* elf = module.own_file.elf();
  module.usable = elf != nullptr && (build_id.empty() || buildIdHex(elf) == build_id);
  if (!module.usable) return module;
  // The debug file's names are the fuller ones (libc6-dbg names libc's internal functions).
  const void* id = nullptr;
  const ssize_t id_size = dwelf_elf_gnu_build_id(elf, &id);
  const std::string debug_path =
      id_size > 0 ? debugFilePath(debug_root_, static_cast<const unsigned char*>(id), static_cast<int>(id_size)) : "";
  if (!module.debug_file.addFunctions(debug_path, 0, module.table)) module.table = std::move(own);
  module.table.finish();
  return module;
}

FileSymbolizer::Module& FileSymbolizer::vdso() {
  if (vdso_) return *vdso_;
  vdso_ = std::make_unique<Module>();
  const auto* image = reinterpret_cast<unsigned char*>(getauxval(AT_SYSINFO_EHDR));
  const size_t size = image ? imageSize(image) : 0;
  vdso_elf_ = size ? elf_memory(reinterpret_cast<char*>(const_cast<unsigned char*>(image)), size) : nullptr;
  if (vdso_elf_ == nullptr) return *vdso_;
  // Its few functions are in its .dynsym.
  Elf_Scn* section = nullptr;
  GElf_Shdr header;
  while ((section = elf_nextscn(vdso_elf_, section)) != nullptr) {
    if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_DYNSYM || header.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    for (size_t i = 0; data && i < header.sh_size / header.sh_entsize; ++i) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr || GELF_ST_TYPE(symbol.st_info) != STT_FUNC ||
          symbol.st_shndx == SHN_UNDEF) {
        continue;
      }
      const char* name = elf_strptr(vdso_elf_, header.sh_link, symbol.st_name);
      if (name && name[0]) vdso_->table.add(symbol.st_value, symbol.st_size, name, SymbolTable::Binding::kGlobal);
    }
  }
  vdso_->table.finish();
  vdso_->usable = true;
  return *vdso_;
}

NativeSymbol FileSymbolizer::lookup(Module& module, const std::string& name, uint64_t address) {
  NativeSymbol symbol;
  symbol.pc = address;
  symbol.module = name;
  symbol.module_offset = address;
  if (!module.usable) return symbol;
  const SymbolTable::Match match = module.table.find(address);
  if (match.name != nullptr) {
    symbol.function = functionName(match.name);
    symbol.offset = match.offset;
    symbol.function_start_known = true;
    return symbol;
  }
  Elf* elf = module.own_file.elf();
  if (elf == nullptr) return symbol;
  if (!module.unnamed) module.unnamed = std::make_unique<EhFrameFunctions>(elf);
  const EhFrameFunctions::Range range = module.unnamed->find(address);
  if (range.start != range.end) {
    symbol.offset = address - range.start;
    symbol.function_start_known = true;
  }
  return symbol;
}

NativeSymbol FileSymbolizer::symbolize(const std::string& module, const std::string& build_id, uint64_t address) {
  const bool this_boot = !boot_id_.empty() && boot_id_ == currentBootId();
  if (module == kKernelModule) {
    NativeSymbol symbol;
    symbol.pc = address;
    symbol.module = kKernelModule;
    symbol.module_offset = address;
    if (!this_boot) return symbol;
    const SymbolTable::Match match = kernel_.find(address);
    if (match.name != nullptr) {
      symbol.function = match.name;
      symbol.offset = match.offset;
      symbol.function_start_known = true;
    }
    return symbol;
  }
  if (module == kVdsoModule) {
    Module none;
    return lookup(this_boot ? vdso() : none, "[vdso]", address);
  }
  return lookup(moduleOf(module, build_id), baseName(module), address);
}

}  // namespace stackscope::native

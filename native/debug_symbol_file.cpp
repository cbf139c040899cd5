#include "native/debug_symbol_file.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

namespace stackscope::native {

std::string debugFilePath(const std::string& root, const unsigned char* build_id, int size) {
  if (size <= 0) return "";
  static const char kDigits[] = "0123456789abcdef";
  std::string path = root + "/.build-id/";
  for (int i = 0; i < size; i++) {
    path += kDigits[build_id[i] >> 4];
    path += kDigits[build_id[i] & 0xf];
    if (i == 0) path += '/';
  }
  return path + ".debug";
}

DebugSymbolFile::~DebugSymbolFile() {
  if (elf_ != nullptr) elf_end(elf_);
  if (fd_ >= 0) close(fd_);
}

bool DebugSymbolFile::addFunctions(const std::string& path, uint64_t bias, SymbolTable& table, bool dynamic_too) {
  if (elf_ != nullptr || path.empty()) return false;
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return false;
  // ELF_C_READ reads what is asked with pread: mapped, the file would show in the process's
  // module list (see findElfWithoutMapping in symbolizer.cpp).
  elf_ = elf_begin(fd_, ELF_C_READ, nullptr);
  Elf_Scn* symtab = nullptr;
  GElf_Shdr header;
  for (const uint32_t type : {SHT_SYMTAB, SHT_DYNSYM}) {
    if (type == SHT_DYNSYM && !dynamic_too) break;
    for (Elf_Scn* section = elf_ ? elf_nextscn(elf_, nullptr) : nullptr; section && !symtab;
         section = elf_nextscn(elf_, section)) {
      if (gelf_getshdr(section, &header) != nullptr && header.sh_type == type) symtab = section;
    }
    if (symtab) break;
  }
  Elf_Data* symbols = symtab ? elf_getdata(symtab, nullptr) : nullptr;
  if (symbols == nullptr || header.sh_entsize == 0) return false;
  const size_t count = header.sh_size / header.sh_entsize;
  for (size_t i = 0; i < count; i++) {
    GElf_Sym symbol;
    if (gelf_getsym(symbols, static_cast<int>(i), &symbol) == nullptr) continue;
    const int type = GELF_ST_TYPE(symbol.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || symbol.st_shndx == SHN_UNDEF) continue;
    const char* name = elf_strptr(elf_, header.sh_link, symbol.st_name);
    if (name == nullptr || name[0] == '\0') continue;
    const int binding = GELF_ST_BIND(symbol.st_info);
    table.add(symbol.st_value + bias, symbol.st_size, name,
              binding == STB_GLOBAL ? SymbolTable::Binding::kGlobal
              : binding == STB_WEAK ? SymbolTable::Binding::kWeak
                                    : SymbolTable::Binding::kLocal);
  }
  return true;
}

}  // namespace stackscope::native

// A module's separate debug file, as Debian's -dbg packages install them: the full .symtab of
// a library shipped stripped (libc6-dbg gives libc's 4 MB file; zlib has no such package in
// Debian 12's main archive). Found by the module's build id at one path,
// ROOT/.build-id/NN/REST.debug: a direct lookup, never a scan of ROOT, never the network.
#pragma once

#include <cstdint>
#include <string>

#include "native/symbol_table.h"

typedef struct Elf Elf;

namespace stackscope::native {

// Where Debian installs them.
inline constexpr const char* kDebianDebugRoot = "/usr/lib/debug";

// ROOT/.build-id/NN/REST.debug for the build id's bytes; empty for an empty id.
std::string debugFilePath(const std::string& root, const unsigned char* build_id, int size);

class DebugSymbolFile {
 public:
  DebugSymbolFile() = default;
  ~DebugSymbolFile();
  DebugSymbolFile(const DebugSymbolFile&) = delete;
  DebugSymbolFile& operator=(const DebugSymbolFile&) = delete;

  // Opens `path` (read with pread, not mapped) and adds the functions of its .symtab, moved by
  // `bias` (where the module was loaded), to `table`; their names live as long as this
  // object. False when there is no such file or it has no .symtab: `table` is left as it was.
  // `dynamic_too`: a file without .symtab gives the functions of its .dynsym (a module's own
  // file, when no debug file names more).
  bool addFunctions(const std::string& path, uint64_t bias, SymbolTable& table, bool dynamic_too = false);
  // The file opened by addFunctions (null before, or when it could not be read as ELF).
  Elf* elf() const { return elf_; }

 private:
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

}  // namespace stackscope::native

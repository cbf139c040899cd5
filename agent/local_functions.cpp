#include "agent/local_functions.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace stackscope::agent {

namespace {

// A file mapped read-only for as long as the object lives.
class MappedFile {
 public:
  explicit MappedFile(const char* path) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st{};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* mapped = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (mapped != MAP_FAILED) {
        data_ = static_cast<const char*>(mapped);
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // `count` objects of `T` at `offset`, or null when they do not lie inside the file.
  template <typename T>
  const T* at(uint64_t offset, uint64_t count = 1) const {
    if (!data_ || offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  size_t size() const { return size_; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

uintptr_t localFunctionInFile(const char* path, uintptr_t load_bias, const char* name) {
  const MappedFile file(path);
  const auto* header = file.at<Elf64_Ehdr>(0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64 ||
      header->e_shentsize != sizeof(Elf64_Shdr))
    return 0;
  const auto* sections = file.at<Elf64_Shdr>(header->e_shoff, header->e_shnum);
  if (!sections) return 0;
  const size_t name_size = std::strlen(name) + 1;  // with its terminating zero
  for (unsigned i = 0; i < header->e_shnum; ++i) {
    const Elf64_Shdr& symtab = sections[i];
    if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= header->e_shnum) continue;
    const Elf64_Shdr& strtab = sections[symtab.sh_link];
    const auto* symbols = file.at<Elf64_Sym>(symtab.sh_offset, symtab.sh_size / sizeof(Elf64_Sym));
    const char* strings = file.at<char>(strtab.sh_offset, strtab.sh_size);
    if (!symbols || !strings || strtab.sh_size < name_size) continue;
    for (uint64_t s = 0; s < symtab.sh_size / sizeof(Elf64_Sym); ++s) {
      const Elf64_Sym& symbol = symbols[s];
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0 ||
          symbol.st_name > strtab.sh_size - name_size ||
          std::memcmp(strings + symbol.st_name, name, name_size) != 0)
        continue;
      return load_bias + symbol.st_value;
    }
  }
  return 0;
}

void* localFunction(const void* in_module, const char* name) {
  Dl_info info{};
  link_map* module = nullptr;
  if (dladdr1(in_module, &info, reinterpret_cast<void**>(&module), RTLD_DL_LINKMAP) == 0 || !module) return nullptr;
  // The main program's link map has no name: its file is the process's executable.
  const char* path = (module->l_name && module->l_name[0] != '\0') ? module->l_name : "/proc/self/exe";
  return reinterpret_cast<void*>(localFunctionInFile(path, module->l_addr, name));
}

}  // namespace stackscope::agent

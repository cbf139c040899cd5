// The symbolizer on a stripped library (only .dynsym left, as Debian's libz and libc ship):
// internal functions get their names from a separate debug file found by build id, and
// without one, every address of one function gets one name from its .eh_frame bounds. The
// truth (each function's start and size) is read from the unstripped build with libelf,
// apart from the symbolizer.
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "native/symbolizer.h"

namespace stackscope::native {
namespace {

// Calls `visit` for each section of the ELF file at `path` until it returns true.
template <typename Visit>
bool forEachSection(const std::string& path, Visit visit) {
  elf_version(EV_CURRENT);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  bool found = false;
  for (Elf_Scn* section = elf ? elf_nextscn(elf, nullptr) : nullptr; section && !found; section = elf_nextscn(elf, section)) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) != nullptr) found = visit(elf, section, header);
  }
  if (elf) elf_end(elf);
  close(fd);
  return found;
}

struct FunctionTruth {
  uint64_t start = 0;  // ELF address
  uint64_t size = 0;
};

// A function's symbol in the .symtab of `path`.
FunctionTruth functionInSymtab(const std::string& path, const char* name) {
  FunctionTruth truth;
  forEachSection(path, [&](Elf* elf, Elf_Scn* section, const GElf_Shdr& header) {
    if (header.sh_type != SHT_SYMTAB) return false;
    Elf_Data* data = elf_getdata(section, nullptr);
    for (size_t i = 0; data && i < header.sh_size / header.sh_entsize; i++) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
      const char* symbol_name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (GELF_ST_TYPE(symbol.st_info) == STT_FUNC && symbol_name && std::strcmp(symbol_name, name) == 0) {
        truth = {symbol.st_value, symbol.st_size};
        return true;
      }
    }
    return false;
  });
  return truth;
}

// The GNU build-id note of `path`, in hex.
std::string buildIdHex(const std::string& path) {
  std::string hex;
  forEachSection(path, [&](Elf*, Elf_Scn* section, const GElf_Shdr& header) {
    if (header.sh_type != SHT_NOTE) return false;
    Elf_Data* data = elf_getdata(section, nullptr);
    GElf_Nhdr note;
    size_t name_at = 0, desc_at = 0;
    for (size_t at = 0; data && (at = gelf_getnote(data, at, &note, &name_at, &desc_at)) != 0;) {
      if (note.n_type != NT_GNU_BUILD_ID) continue;
      for (size_t i = 0; i < note.n_descsz; i++) {
        char byte[3];
        std::snprintf(byte, sizeof byte, "%02x", static_cast<const unsigned char*>(data->d_buf)[desc_at + i]);
        hex += byte;
      }
      return true;
    }
    return false;
  });
  return hex;
}

std::string hex(uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// The stripped library, loaded for one test: where its functions are in this process.
class StrippedLibrary {
 public:
  StrippedLibrary() : handle_(dlopen(UNNAMED_FUNCTIONS_STRIPPED, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) return;
    Dl_info info;
    void* entry = dlsym(handle_, "unnamed_functions_entry");
    if (entry != nullptr && dladdr(entry, &info) != 0) base = reinterpret_cast<uint64_t>(info.dli_fbase);
    first = addressFrom("unnamed_functions_first");
    second = addressFrom("unnamed_functions_second");
    this->entry = reinterpret_cast<uint64_t>(entry);
  }
  ~StrippedLibrary() {
    if (handle_) dlclose(handle_);
  }
  bool loaded() const { return handle_ != nullptr && base != 0 && first != 0 && second != 0; }

  uint64_t base = 0;  // where its first segment (ELF address 0) was loaded
  uint64_t entry = 0, first = 0, second = 0;

 private:
  uint64_t addressFrom(const char* getter) {
    auto function = reinterpret_cast<void* (*)()>(dlsym(handle_, getter));
    return function ? reinterpret_cast<uint64_t>(function()) : 0;
  }
  void* handle_;
};

constexpr const char* kModule = "libunnamed_functions_stripped.so";

TEST(StrippedModule, GivesEveryAddressOfAnUnnamedFunctionOneNameFromItsEhFrameBounds) {
  StrippedLibrary library;
  ASSERT_TRUE(library.loaded()) << dlerror();
  const FunctionTruth first = functionInSymtab(UNNAMED_FUNCTIONS, "unnamed_first");
  const FunctionTruth second = functionInSymtab(UNNAMED_FUNCTIONS, "unnamed_second");
  ASSERT_GT(first.size, 2u);
  ASSERT_GT(second.size, 2u);
  ASSERT_EQ(library.first - library.base, first.start);  // the truth file is the same build

  Symbolizer symbolizer(getpid(), std::chrono::milliseconds(0), "/nonexistent");
  for (const FunctionTruth& function : {first, second}) {
    const std::string expected = std::string(kModule) + "+" + hex(function.start);
    for (uint64_t at : {uint64_t{0}, function.size / 2, function.size - 1}) {
      const NativeSymbol symbol = symbolizer.symbolize(library.base + function.start + at);
      EXPECT_EQ(symbol.function, "");  // stripped: no name to give
      EXPECT_EQ(symbol.module, kModule);
      EXPECT_EQ(symbol.offset, at);
      EXPECT_EQ(display(symbol), expected) << "at +" << at;
    }
  }
  // Its exported function keeps its .dynsym name.
  EXPECT_EQ(symbolizer.symbolize(library.entry + 1).function, "unnamed_functions_entry");
}

TEST(StrippedModule, NamesInternalFunctionsFromTheDebugFileAtItsBuildIdPath) {
  StrippedLibrary library;
  ASSERT_TRUE(library.loaded()) << dlerror();
  const std::string id = buildIdHex(UNNAMED_FUNCTIONS_STRIPPED);
  ASSERT_GT(id.size(), 2u) << "the library was linked without --build-id";
  const std::string root = testing::TempDir() + "stackscope_debug_root_" + std::to_string(getpid());
  const std::string directory = root + "/.build-id/" + id.substr(0, 2);
  std::filesystem::create_directories(directory);
  std::filesystem::copy_file(UNNAMED_FUNCTIONS_DEBUG, directory + "/" + id.substr(2) + ".debug",
                             std::filesystem::copy_options::overwrite_existing);

  Symbolizer symbolizer(getpid(), std::chrono::milliseconds(0), root);
  const NativeSymbol first = symbolizer.symbolize(library.first + 3);
  const NativeSymbol second = symbolizer.symbolize(library.second);
  const NativeSymbol entry = symbolizer.symbolize(library.entry + 1);
  std::filesystem::remove_all(root);
  EXPECT_EQ(first.function, "unnamed_first");
  EXPECT_EQ(first.offset, 3u);
  EXPECT_EQ(first.module, kModule);
  EXPECT_EQ(second.function, "unnamed_second");
  EXPECT_EQ(entry.function, "unnamed_functions_entry");
}

TEST(StrippedModule, NamesLibcsInternalFunctionsWhenLibc6DbgIsInstalled) {
  // libc's own file is stripped; libc6-dbg (scripts/setup.sh) installs its .symtab. A static
  // function of glibc: in no .dynsym, so named only from that file.
  Dl_info info;
  ASSERT_NE(dladdr(dlsym(RTLD_DEFAULT, "getpid"), &info), 0);
  const std::string libc = info.dli_fname;
  const std::string id = buildIdHex(libc);
  const std::string debug_file = std::string(kDebianDebugRoot) + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
  if (access(debug_file.c_str(), R_OK) != 0) GTEST_SKIP() << "no " << debug_file << " (package libc6-dbg)";
  const FunctionTruth truth = functionInSymtab(debug_file, "__libc_start_call_main");
  ASSERT_GT(truth.size, 4u);

  Symbolizer symbolizer(getpid());
  const NativeSymbol symbol = symbolizer.symbolize(reinterpret_cast<uint64_t>(info.dli_fbase) + truth.start + 4);
  EXPECT_EQ(symbol.function, "__libc_start_call_main");
  EXPECT_EQ(symbol.offset, 4u);
  EXPECT_EQ(symbol.module, "libc.so.6");
  // Its .symtab names carry symbol versions ("pthread_cond_broadcast@@GLIBC_2.3.2"): not shown.
  const uint64_t versioned = reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "pthread_cond_broadcast"));
  EXPECT_EQ(symbolizer.symbolize(versioned + 1).function, "pthread_cond_broadcast");
}

}  // namespace
}  // namespace stackscope::native

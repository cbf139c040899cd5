// Naming a recording's native frames after the fact (native/file_symbolizer.h): a library's
// function by its file, build id and ELF address (the address from dladdr's load base, apart
// from the symbolizer); nothing named when the file's build id is not the recorded one, when
// the file is gone, or for kernel addresses of another boot.
#include "native/file_symbolizer.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "native/boot_id.h"

namespace stackscope::native {
namespace {

struct LateFunction {
  uint64_t address = 0;  // ELF address of late_library_function in LATE_LIBRARY
  std::string build_id;
};

LateFunction lateFunction() {
  LateFunction late;
  void* library = dlopen(LATE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return late;
  const auto pc = reinterpret_cast<uintptr_t>(dlsym(library, "late_library_function"));
  Dl_info info;
  if (pc && dladdr(reinterpret_cast<void*>(pc), &info)) late.address = pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
  dlclose(library);
  elf_version(EV_CURRENT);
  const int fd = open(LATE_LIBRARY, O_RDONLY | O_CLOEXEC);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  late.build_id = buildIdHex(elf);
  elf_end(elf);
  close(fd);
  return late;
}

TEST(FileSymbolizer, NamesALibraryFunctionByFileBuildIdAndAddress) {
  const LateFunction late = lateFunction();
  ASSERT_NE(late.address, 0u);
  ASSERT_EQ(late.build_id.size(), 40u) << late.build_id;
  FileSymbolizer symbolizer(currentBootId());
  const NativeSymbol symbol = symbolizer.symbolize(LATE_LIBRARY, late.build_id, late.address + 3);
  EXPECT_EQ(symbol.function, "late_library_function");
  EXPECT_EQ(symbol.offset, 3u);
  EXPECT_EQ(symbol.module, "liblate_library.so");
  EXPECT_EQ(display(symbolizer.symbolize(LATE_LIBRARY, "", late.address)), "late_library_function")
      << "no build id recorded: not checked";
}

TEST(FileSymbolizer, NamesNothingOfAnotherBuildAMissingFileOrAnotherBoot) {
  const LateFunction late = lateFunction();
  FileSymbolizer symbolizer("not-this-boot");
  const NativeSymbol replaced = symbolizer.symbolize(LATE_LIBRARY, std::string(40, '0'), late.address);
  EXPECT_EQ(replaced.function, "");
  EXPECT_FALSE(replaced.function_start_known);
  EXPECT_EQ(display(replaced), "liblate_library.so+0x" + [&] {
    char text[32];
    std::snprintf(text, sizeof text, "%lx", static_cast<unsigned long>(late.address));
    return std::string(text);
  }());
  EXPECT_FALSE(symbolizer.symbolize("/nonexistent/libgone.so", "", 0x1000).function_start_known);
  const NativeSymbol kernel = symbolizer.symbolize(kKernelModule, "", 0xffffffff81000000);
  EXPECT_FALSE(kernel.function_start_known);
  EXPECT_EQ(kernel.module, "[kernel]");
}

}  // namespace
}  // namespace stackscope::native

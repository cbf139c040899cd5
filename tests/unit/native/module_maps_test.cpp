// The module list read from /proc/PID/maps alone (the agent's names for native frames when
// the symbolizer library is absent): executable file mappings, each with the address its
// file's offset 0 is mapped at, and nothing for anonymous memory.
#include "native/module_maps.h"

#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace stackscope::native {
namespace {

TEST(ModuleMaps, ListsExecutableFileMappingsWithTheAddressOfTheirFilesStart) {
  const std::string maps =
      "7f0000000000-7f0000002000 r--p 00000000 08:01 11 /usr/lib/x86_64-linux-gnu/libz.so.1.2.13\n"
      "7f0000002000-7f0000010000 r-xp 00002000 08:01 11 /usr/lib/x86_64-linux-gnu/libz.so.1.2.13\n"
      "7f0000010000-7f0000011000 rw-p 00010000 08:01 11 /usr/lib/x86_64-linux-gnu/libz.so.1.2.13\n"
      "7f0000020000-7f0000030000 rwxp 00000000 00:00 0 \n"
      "7f0000030000-7f0000031000 r-xp 00000000 08:01 12 /tmp/libx.so (deleted)\n"
      "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0 [vdso]\n"
      "7ffe00000000-7ffe00021000 rw-p 00000000 00:00 0 [stack]\n";
  const std::vector<MappedModule> modules = parseModuleMaps(maps);
  ASSERT_EQ(modules.size(), 3u);
  EXPECT_EQ(modules[0].name, "libz.so.1.2.13");
  EXPECT_EQ(modules[0].start, 0x7f0000002000u);
  EXPECT_EQ(modules[0].base, 0x7f0000000000u);
  EXPECT_EQ(modules[1].name, "libx.so (deleted)");
  EXPECT_EQ(modules[2].name, "[vdso]");

  EXPECT_EQ(moduleHolding(modules, 0x7f0000004a26u), &modules[0]);
  EXPECT_EQ(moduleHolding(modules, 0x7f0000000100u), nullptr);  // not executable
  EXPECT_EQ(moduleHolding(modules, 0x7f0000020010u), nullptr);  // anonymous: JIT code
  EXPECT_EQ(moduleHolding(modules, 0x7f0000010000u), nullptr);  // just past its end
}

TEST(ModuleMaps, IgnoresLinesItCannotRead) {
  EXPECT_TRUE(parseModuleMaps("").empty());
  EXPECT_TRUE(parseModuleMaps("garbage\n7f00-7e00 r-xp 0 08:01 1 /lib/a.so\nzz-yy r-xp\n").empty());
}

TEST(ModuleMaps, FindsLibcInThisProcessAtDladdrsLoadBase) {
  void* getpid_address = dlsym(RTLD_DEFAULT, "getpid");
  Dl_info info;
  ASSERT_NE(dladdr(getpid_address, &info), 0);
  const std::vector<MappedModule> modules = readModuleMaps(getpid());
  const MappedModule* libc = moduleHolding(modules, reinterpret_cast<uint64_t>(getpid_address));
  ASSERT_NE(libc, nullptr);
  EXPECT_EQ(libc->name, "libc.so.6");
  EXPECT_EQ(libc->base, reinterpret_cast<uint64_t>(info.dli_fbase));
}

}  // namespace
}  // namespace stackscope::native

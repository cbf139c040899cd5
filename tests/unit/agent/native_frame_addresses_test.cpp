// Where the agent says a native frame is (agent/native_frame_addresses.h): the module's file,
// the ELF address checked against dladdr's load base, the build id as readelf prints it; a pc
// in a library loaded after the module list was read is found once the list is read again
// (the unknown answer is not kept), and kernel addresses stay as they are.
#include "agent/native_frame_addresses.h"

#include <dlfcn.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(300);

extern "C" __attribute__((noinline)) int native_frame_addresses_probe(int x) { return x * 5 + 1; }

uintptr_t loadBase(uintptr_t pc) {
  Dl_info info;
  return dladdr(reinterpret_cast<void*>(pc), &info) ? reinterpret_cast<uintptr_t>(info.dli_fbase) : 0;
}

TEST(NativeFrameAddresses, ALibraryFunctionIsItsFileAndAnElfAddressOfIt) {
  NativeFrameAddresses addresses(kInterval);
  const auto getpid_pc = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "getpid"));
  const NativeFrameAddresses::Location libc = addresses.locate(getpid_pc + 1);
  EXPECT_EQ(libc.module_name, "libc.so.6");
  EXPECT_EQ(libc.module.front(), '/') << libc.module;
  EXPECT_EQ(libc.address, getpid_pc + 1 - loadBase(getpid_pc));
  EXPECT_EQ(libc.build_id.size(), 40u) << "Debian builds carry a 20-byte GNU build id: " << libc.build_id;
  EXPECT_EQ(libc.placeholder, "") << "named by the reader";

  const auto probe = reinterpret_cast<uintptr_t>(&native_frame_addresses_probe);
  const NativeFrameAddresses::Location self = addresses.locate(probe);
  EXPECT_EQ(self.module_name, "agent_tests") << "the main program, named by /proc/self/exe";
  EXPECT_EQ(self.address, probe - loadBase(probe));
}

TEST(NativeFrameAddresses, FindsALibraryLoadedLaterOnceTheModulesAreReadAgain) {
  NativeFrameAddresses addresses(kInterval);
  addresses.locate(reinterpret_cast<uintptr_t>(&native_frame_addresses_probe));  // reads the list now
  void* library = dlopen(LATE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  const auto function = reinterpret_cast<uintptr_t>(dlsym(library, "late_library_function"));
  const NativeFrameAddresses::Location early = addresses.locate(function);
  EXPECT_EQ(early.module, "");
  EXPECT_EQ(early.placeholder.rfind("[unknown] 0x", 0), 0u) << early.placeholder;
  std::this_thread::sleep_for(kInterval + std::chrono::milliseconds(50));
  const NativeFrameAddresses::Location later = addresses.locate(function);
  EXPECT_EQ(later.module, LATE_LIBRARY);
  EXPECT_EQ(later.address, function - loadBase(function));
  dlclose(library);
}

TEST(NativeFrameAddresses, KernelAddressesStayAsTheyAre) {
  NativeFrameAddresses addresses(kInterval);
  const NativeFrameAddresses::Location kernel = addresses.locate(0xffffffff81000123);
  EXPECT_EQ(kernel.module, "[kernel]");
  EXPECT_EQ(kernel.address, 0xffffffff81000123u);
  EXPECT_EQ(kernel.module_name, "[kernel]");
}

}  // namespace
}  // namespace stackscope::agent

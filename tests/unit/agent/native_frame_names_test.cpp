// How the agent names native frames (agent/native_frame_names.h), with the real symbolizer
// library of this build and without it: a pc asked about before its library's module was read
// is named once the module list is read again (its unknown answer is not kept), every pc of
// one function is one function, and without libstackscope_native.so frames are named
// module+offset from /proc/self/maps, the offset checked against dladdr's load base.
#include "agent/native_frame_names.h"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

constexpr auto kInterval = std::chrono::milliseconds(300);

extern "C" __attribute__((noinline)) int native_frame_names_probe(int x) {
  return x * 5 + 1;
}

uintptr_t probeAddress() { return reinterpret_cast<uintptr_t>(&native_frame_names_probe); }

// LATE_LIBRARY, opened by the test after the names' module list was first read.
class LateLibrary {
 public:
  LateLibrary() : handle_(dlopen(LATE_LIBRARY, RTLD_NOW | RTLD_LOCAL)) {}
  ~LateLibrary() {
    if (handle_) dlclose(handle_);
  }
  uintptr_t function() const {
    return handle_ ? reinterpret_cast<uintptr_t>(dlsym(handle_, "late_library_function")) : 0;
  }

 private:
  void* handle_;
};

std::string moduleOffsetName(uintptr_t pc) {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0) return "";
  std::string path = info.dli_fname;
  char offset[32];
  std::snprintf(offset, sizeof offset, "+0x%lx", static_cast<unsigned long>(pc - reinterpret_cast<uintptr_t>(info.dli_fbase)));
  return path.substr(path.rfind('/') + 1) + offset;
}

TEST(NativeFrameNames, NamesAPcOfALateLibraryOnceTheModulesAreReadAgain) {
  NativeFrameNames names(SYMBOLIZER_LIBRARY, kInterval);
  names.functionOf(probeAddress());  // the symbolizer reads the module list now
  ASSERT_EQ(names.problem(), "");
  LateLibrary library;
  ASSERT_NE(library.function(), 0u) << dlerror();
  const uint32_t early = names.functionOf(library.function());
  EXPECT_EQ(names.function(early).name.rfind("[unknown] 0x", 0), 0u) << names.function(early).name;
  EXPECT_EQ(names.function(early).module, "");
  std::this_thread::sleep_for(kInterval + std::chrono::milliseconds(50));
  const uint32_t later = names.functionOf(library.function());
  EXPECT_EQ(names.function(later).name, "late_library_function");
  EXPECT_EQ(names.function(later).module, "liblate_library.so");
  EXPECT_EQ(names.functionOf(library.function()), later);
}

TEST(NativeFrameNames, GivesEveryPcOfOneFunctionOneIndex) {
  NativeFrameNames names(SYMBOLIZER_LIBRARY, kInterval);
  const uint32_t first = names.functionOf(probeAddress());
  EXPECT_EQ(names.function(first).name, "native_frame_names_probe");
  EXPECT_EQ(names.function(first).module, "agent_tests");
  EXPECT_EQ(names.functionOf(probeAddress() + 2), first);
  const uint32_t libc = names.functionOf(reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "getpid")));
  EXPECT_NE(libc, first);
  EXPECT_EQ(names.function(libc).module, "libc.so.6");
}

TEST(NativeFrameNames, WithoutTheSymbolizerLibraryNamesModulePlusOffsetFromTheMaps) {
  NativeFrameNames names("/nonexistent/libstackscope_native.so", kInterval);
  const uintptr_t getpid_address = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "getpid"));
  const uint32_t libc = names.functionOf(getpid_address);
  EXPECT_NE(names.problem().find("/nonexistent/libstackscope_native.so"), std::string::npos) << names.problem();
  EXPECT_EQ(names.function(libc).name, moduleOffsetName(getpid_address));
  EXPECT_EQ(names.function(libc).module, "libc.so.6");
  const uint32_t kernel = names.functionOf(0xffffffff813a4413);  // a system call's frame
  EXPECT_EQ(names.function(kernel).name, "[kernel]+0xffffffff813a4413");
  EXPECT_EQ(names.function(kernel).module, "[kernel]");

  // A library loaded since: unknown until the interval is up, then found.
  LateLibrary library;
  ASSERT_NE(library.function(), 0u) << dlerror();
  const uint32_t early = names.functionOf(library.function());
  EXPECT_EQ(names.function(early).module, "");
  std::this_thread::sleep_for(kInterval + std::chrono::milliseconds(50));
  const uint32_t later = names.functionOf(library.function());
  EXPECT_EQ(names.function(later).name, moduleOffsetName(library.function()));
  EXPECT_EQ(names.function(later).module, "liblate_library.so");
}

TEST(NativeFrameNames, FindsTheSymbolizerLibraryBesideTheBinaryHoldingIt) {
  // In the agent that is libstackscope.so's directory; here the test program's.
  Dl_info info;
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&probeAddress), &info), 0);
  std::string program = info.dli_fname;
  EXPECT_EQ(NativeFrameNames::besideThisLibrary(), program.substr(0, program.rfind('/') + 1) + "libstackscope_native.so");
}

}  // namespace
}  // namespace stackscope::agent

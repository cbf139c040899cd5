// The symbolizer on addresses whose names are known: functions of this test binary (C and
// C++ with namespaces and overloads), a library dlopen'ed after the Symbolizer was made, libc,
// and memory that belongs to no module (as JIT code does).
#include "native/symbolizer.h"

#include <dlfcn.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace stackscope::native {
namespace {

uint64_t addressOf(const void* function) {
  return reinterpret_cast<uint64_t>(function);
}

// The lines of /proc/self/maps that map a file: the modules, and any file mapped for reading.
std::vector<std::string> fileMappings() {
  std::vector<std::string> lines;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find(" /") != std::string::npos) lines.push_back(line);
  return lines;
}

}  // namespace
}  // namespace stackscope::native

extern "C" __attribute__((noinline)) int native_test_plain_function(int x) {
  return x * 7 + 3;
}

namespace symbolizer_probe::shapes {
__attribute__((noinline)) int area(int side) {
  return side * side;
}
__attribute__((noinline)) double area(double width, double height) {
  return width * height;
}
}  // namespace symbolizer_probe::shapes

namespace stackscope::native {
namespace {

// A library opened for one test and closed after it, so each test sees it loaded late.
class LateLibrary {
 public:
  LateLibrary() : handle_(dlopen(LATE_LIBRARY, RTLD_NOW | RTLD_LOCAL)) {}
  ~LateLibrary() {
    if (handle_) dlclose(handle_);
  }
  uint64_t function() const { return handle_ ? addressOf(dlsym(handle_, "late_library_function")) : 0; }

 private:
  void* handle_;
};

TEST(Symbolizer, NamesAFunctionOfThisBinaryWithTheOffsetInIt) {
  Symbolizer symbolizer(getpid());
  ASSERT_TRUE(symbolizer.ok()) << symbolizer.error();
  uint64_t start = addressOf(reinterpret_cast<void*>(&native_test_plain_function));
  NativeSymbol symbol = symbolizer.symbolize(start + 2);
  EXPECT_EQ(symbol.function, "native_test_plain_function");
  EXPECT_EQ(symbol.module, "native_tests");
  EXPECT_EQ(symbol.offset, 2u);
  EXPECT_EQ(symbol.pc, start + 2);
  EXPECT_EQ(display(symbol), "native_test_plain_function");
}

TEST(Symbolizer, DemanglesCppNamesWithNamespaceAndOverload) {
  Symbolizer symbolizer(getpid());
  int (*by_side)(int) = &symbolizer_probe::shapes::area;
  double (*by_sides)(double, double) = &symbolizer_probe::shapes::area;
  EXPECT_EQ(symbolizer.symbolize(addressOf(reinterpret_cast<void*>(by_side))).function,
            "symbolizer_probe::shapes::area(int)");
  EXPECT_EQ(symbolizer.symbolize(addressOf(reinterpret_cast<void*>(by_sides))).function,
            "symbolizer_probe::shapes::area(double, double)");
}

TEST(Symbolizer, GivesTheSameAnswerForAnAddressAskedTwice) {
  Symbolizer symbolizer(getpid());
  uint64_t pc = addressOf(reinterpret_cast<void*>(&native_test_plain_function)) + 1;
  NativeSymbol first = symbolizer.symbolize(pc);
  NativeSymbol again = symbolizer.symbolize(pc);
  EXPECT_EQ(first.function, again.function);
  EXPECT_EQ(first.module, again.module);
  EXPECT_EQ(first.offset, again.offset);
}

TEST(Symbolizer, FindsALibraryLoadedAfterItWasMade) {
  Symbolizer symbolizer(getpid(), std::chrono::milliseconds(0));
  LateLibrary library;
  ASSERT_NE(library.function(), 0u) << dlerror();
  NativeSymbol symbol = symbolizer.symbolize(library.function());
  EXPECT_EQ(symbol.function, "late_library_function");
  EXPECT_EQ(symbol.module, "liblate_library.so");
  EXPECT_EQ(symbol.offset, 0u);
}

TEST(Symbolizer, RereadsTheModulesAtMostOncePerIntervalAndThenFindsWhatItMissed) {
  // The modules were read when it was made, moments ago: the late library stays unknown
  // until the interval is up, and that answer is not kept (no fresh read was made for it).
  const auto interval = std::chrono::seconds(3);
  Symbolizer symbolizer(getpid(), interval);
  LateLibrary library;
  ASSERT_NE(library.function(), 0u) << dlerror();
  NativeSymbol early = symbolizer.symbolize(library.function());
  EXPECT_EQ(early.function, "");
  EXPECT_EQ(early.module, "");
  EXPECT_EQ(display(early).rfind("[unknown] 0x", 0), 0u) << display(early);
  std::this_thread::sleep_for(interval + std::chrono::milliseconds(50));
  NativeSymbol later = symbolizer.symbolize(library.function());
  EXPECT_EQ(later.function, "late_library_function");
  EXPECT_EQ(later.module, "liblate_library.so");
}

TEST(Symbolizer, NamesTheKernelsVdsoWithoutThePid) {
  // The JVM reads its clocks in the vDSO (System.nanoTime): its clock_gettime must be named,
  // and the module called the same in every process.
  Symbolizer symbolizer(getpid());
  uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
  ASSERT_NE(vdso, 0u);
  bool clock_gettime_seen = false;
  for (uint64_t pc = vdso; pc < vdso + 8192; pc += 16) {
    NativeSymbol symbol = symbolizer.symbolize(pc);
    if (symbol.module.empty()) continue;  // past the vDSO's end
    EXPECT_EQ(symbol.module, "[vdso]");
    clock_gettime_seen |= symbol.function == "__vdso_clock_gettime";
  }
  EXPECT_TRUE(clock_gettime_seen);
}

TEST(Symbolizer, MapsNoModuleFileIntoTheProcessItReads) {
  // A file mapped to read its symbols would show in /proc/self/maps under the module's name,
  // as a second copy of the module; the next read of the module list would take the module
  // to span both copies and all between (JIT code included).
  Symbolizer symbolizer(getpid(), std::chrono::milliseconds(0));
  std::vector<std::string> before = fileMappings();
  symbolizer.symbolize(addressOf(reinterpret_cast<void*>(&native_test_plain_function)));
  symbolizer.symbolize(addressOf(dlsym(RTLD_DEFAULT, "getpid")));
  symbolizer.symbolize(addressOf(dlsym(RTLD_DEFAULT, "dwfl_begin")));  // libdw's own file
  std::vector<std::string> added;
  for (const std::string& line : fileMappings())
    if (std::find(before.begin(), before.end(), line) == before.end()) added.push_back(line);
  EXPECT_TRUE(added.empty()) << "first mapping added: " << added.front();
}

TEST(Symbolizer, NamesNoFunctionFromAFileReplacedSinceItWasLoaded) {
  // A library upgraded while the process runs: its mapping is "(deleted)" and a different
  // file now has its path. Names read from the new file would be wrong: the frame stays
  // "module+offset", saying why.
  char directory[] = "/tmp/stackscope_native_XXXXXX";
  ASSERT_NE(mkdtemp(directory), nullptr);
  const std::string path = std::string(directory) + "/libreplaced.so";
  std::ifstream original(LATE_LIBRARY, std::ios::binary);
  std::ofstream(path, std::ios::binary) << original.rdbuf();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  uint64_t function = addressOf(dlsym(handle, "late_library_function"));
  unlink(path.c_str());
  std::ifstream twin(LATE_LIBRARY_TWIN, std::ios::binary);  // its function at the same offset
  std::ofstream(path, std::ios::binary) << twin.rdbuf();

  Symbolizer symbolizer(getpid());
  NativeSymbol symbol = symbolizer.symbolize(function);
  dlclose(handle);
  unlink(path.c_str());
  rmdir(directory);
  EXPECT_EQ(symbol.function, "");  // not late_library_twin_function
  EXPECT_EQ(symbol.module, "libreplaced.so (deleted)");
  EXPECT_EQ(display(symbol).rfind("libreplaced.so (deleted)+0x", 0), 0u) << display(symbol);
}

TEST(Symbolizer, NamesALibcFunction) {
  Symbolizer symbolizer(getpid());
  // dlsym gives libc's own address, never a PLT entry of this binary.
  void* getpid_address = dlsym(RTLD_DEFAULT, "getpid");
  ASSERT_NE(getpid_address, nullptr);
  NativeSymbol symbol = symbolizer.symbolize(addressOf(getpid_address));
  EXPECT_EQ(symbol.module, "libc.so.6");
  // glibc exports one function under two names: __getpid (global) and getpid, its weak alias;
  // libdw names an address by its global symbol first.
  EXPECT_TRUE(symbol.function == "__getpid" || symbol.function == "getpid") << symbol.function;
  EXPECT_EQ(symbol.offset, 0u);
}

TEST(Symbolizer, NamesNothingForMemoryOutsideEveryModule) {
  Symbolizer symbolizer(getpid(), std::chrono::milliseconds(0));
  // Anonymous executable memory, as the JVM's generated code is.
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  uint64_t pc = addressOf(page) + 0x10;
  NativeSymbol symbol = symbolizer.symbolize(pc);
  munmap(page, 4096);
  EXPECT_EQ(symbol.function, "");
  EXPECT_EQ(symbol.module, "");
  char expected[64];
  std::snprintf(expected, sizeof expected, "[unknown] 0x%lx", static_cast<unsigned long>(pc));
  EXPECT_EQ(display(symbol), expected);
  EXPECT_EQ(display(symbolizer.symbolize(0x10)), "[unknown] 0x10");
}

// The ends of the modules' last mappings that a free page follows.
std::vector<uint64_t> freePagesAfterModules() {
  std::vector<uint64_t> pages;
  std::ifstream maps("/proc/self/maps");
  std::string line, previous_path;
  uint64_t previous_end = 0;
  while (std::getline(maps, line)) {
    unsigned long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &start, &end) != 2) continue;
    size_t slash = line.find(" /");
    std::string path = slash == std::string::npos ? "" : line.substr(slash + 1);
    if (!previous_path.empty() && path != previous_path && start >= previous_end + 4096)
      pages.push_back(previous_end);
    previous_path = path;
    previous_end = end;
  }
  return pages;
}

TEST(Symbolizer, NamesNothingForMemoryJustPastTheEndOfEachModule) {
  // Memory mapped after the module list was read, right past a module's end (where the
  // dynamic loader puts the next library): libdw's dwfl_addrmodule can answer with the module
  // before it, so the answer is checked against the module's bounds.
  Symbolizer symbolizer(getpid(), std::chrono::milliseconds(0));
  std::vector<uint64_t> free_pages = freePagesAfterModules();
  ASSERT_FALSE(free_pages.empty());
  for (uint64_t free_page : free_pages) {
    void* page = mmap(reinterpret_cast<void*>(free_page), 4096, PROT_READ | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (page != reinterpret_cast<void*>(free_page)) continue;  // taken since
    NativeSymbol symbol = symbolizer.symbolize(free_page + 0x100);
    munmap(page, 4096);
    EXPECT_EQ(symbol.module, "") << std::hex << free_page;
  }
}

TEST(Symbolizer, NamesNothingWithoutFailingForAProcessThatDoesNotExist) {
  // Pid numbers stop below 2^22 (pid_max's ceiling): this one cannot exist.
  Symbolizer symbolizer(4194304 + 17);
  EXPECT_FALSE(symbolizer.ok());
  EXPECT_NE(symbolizer.error().find("4194321"), std::string::npos) << symbolizer.error();
  uint64_t pc = addressOf(reinterpret_cast<void*>(&native_test_plain_function));
  EXPECT_EQ(display(symbolizer.symbolize(pc)).rfind("[unknown]", 0), 0u);
}

TEST(SymbolDisplay, ShowsTheFunctionElseTheModuleOffsetElseTheAddress) {
  NativeSymbol symbol;
  symbol.pc = 0x7f0012345678;
  EXPECT_EQ(display(symbol), "[unknown] 0x7f0012345678");
  symbol.module = "libjvm.so";
  symbol.module_offset = 0x1234;
  EXPECT_EQ(display(symbol), "libjvm.so+0x1234");
  symbol.function = "JavaThread::run()";
  EXPECT_EQ(display(symbol), "JavaThread::run()");
}

TEST(Demangle, DemanglesOnlyCppSymbolNames) {
  EXPECT_EQ(demangle("_ZN6Thread4callEv"), "Thread::call()");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("f"), "f");  // the demangler alone would say "float"
  EXPECT_EQ(demangle("_Znot_a_mangled_name!"), "_Znot_a_mangled_name!");
}

}  // namespace
}  // namespace stackscope::native

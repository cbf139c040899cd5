// The symbolizer and the thread list on a real JVM (tests/native_programs/WaitForInput.java,
// run by $STACKSCOPE_TEST_JAVA, else the JDK the build found): the JVM's own C++ functions,
// local symbols of libjvm.so's .symtab, come out demangled, at the addresses libjvm.so's
// symbol table gives (read here with libelf, independently of the symbolizer), and the JVM's
// own threads are listed by name.
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "child_process.h"
#include "native/process_threads.h"
#include "native/symbolizer.h"

namespace stackscope::native {
namespace {

std::string testJava() {
  const char* java = std::getenv("STACKSCOPE_TEST_JAVA");
  return java && *java ? java : NATIVE_TEST_JAVA;
}

// Where libjvm.so's first byte is mapped in process `pid` (its first segment maps file offset
// 0 at address 0 of the ELF), and its path.
bool findLibjvm(pid_t pid, uint64_t& base, std::string& path) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    unsigned long start = 0, offset = 0;
    size_t slash = line.find(" /");
    if (slash == std::string::npos || line.find("/libjvm.so") == std::string::npos) continue;
    if (std::sscanf(line.c_str(), "%lx-%*x %*s %lx", &start, &offset) == 2 && offset == 0) {
      base = start;
      path = line.substr(slash + 1);
      return true;
    }
  }
  return false;
}

// The value of symbol `name` in the .symtab of the ELF file at `path`; 0 if absent.
uint64_t symtabValue(const std::string& path, const char* name) {
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  uint64_t value = 0;
  for (Elf_Scn* section = nullptr; elf && (section = elf_nextscn(elf, section)) != nullptr;) {
    GElf_Shdr header;
    if (!gelf_getshdr(section, &header) || header.sh_type != SHT_SYMTAB || header.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    for (size_t i = 0; data && i < header.sh_size / header.sh_entsize; i++) {
      GElf_Sym symbol;
      if (!gelf_getsym(data, static_cast<int>(i), &symbol)) continue;
      const char* symbol_name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (symbol_name && std::strcmp(symbol_name, name) == 0) value = symbol.st_value;
    }
  }
  if (elf) elf_end(elf);
  close(fd);
  return value;
}

class JvmProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GT(jvm_.pid(), 0);
    std::string ready;
    ASSERT_TRUE(jvm_.readLine(ready));
    ASSERT_EQ(ready, "ready");
    ASSERT_TRUE(findLibjvm(jvm_.pid(), libjvm_base_, libjvm_path_));
  }
  // Looked at from outside, the JVM ends as it would have: on its input's end, exit code 0.
  void TearDown() override { EXPECT_EQ(jvm_.finish(), 0); }
  testing::ChildProcess jvm_{testJava(), {"-cp", WAIT_FOR_INPUT_JAR, "WaitForInput"}};
  uint64_t libjvm_base_ = 0;
  std::string libjvm_path_;
};

TEST_F(JvmProcess, NamesTheJvmsOwnFunctionsDemangled) {
  Symbolizer symbolizer(jvm_.pid());
  ASSERT_TRUE(symbolizer.ok()) << symbolizer.error();
  struct Known {
    const char* symbol;
    const char* name;
  };
  // Exported C, and local C++ (hidden in libjvm.so: only its .symtab knows them).
  for (Known known : {Known{"JVM_MonitorNotifyAll", "JVM_MonitorNotifyAll"},
                      Known{"_ZN10JavaThread3runEv", "JavaThread::run()"},
                      Known{"_ZN8VMThread3runEv", "VMThread::run()"}}) {
    uint64_t value = symtabValue(libjvm_path_, known.symbol);
    ASSERT_NE(value, 0u) << known.symbol << " not in " << libjvm_path_;
    NativeSymbol symbol = symbolizer.symbolize(libjvm_base_ + value + 5);
    EXPECT_EQ(symbol.function, known.name);
    EXPECT_EQ(symbol.module, "libjvm.so");
    EXPECT_EQ(symbol.offset, 5u);
    EXPECT_EQ(symbol.module_offset, value + 5);
  }
}

TEST_F(JvmProcess, ListsTheJvmsOwnThreads) {
  std::vector<ProcessThread> threads = listThreads(jvm_.pid());
  auto has = [&](const char* name) {
    for (const ProcessThread& thread : threads)
      if (thread.name == name) return true;
    return false;
  };
  // The launcher's threads keep the program's name (Java's main thread among them); HotSpot
  // names its own, cut to the kernel's 15 bytes.
  EXPECT_TRUE(has("java"));
  EXPECT_TRUE(has("VM Thread"));
  EXPECT_TRUE(has("C1 CompilerThre"));
  EXPECT_TRUE(has("C2 CompilerThre"));
  for (const ProcessThread& thread : threads) EXPECT_GE(threadCpuTimeNs(jvm_.pid(), thread.tid), 0) << thread.name;
  EXPECT_GT(processCpuTimeNs(jvm_.pid()), 0);
}

}  // namespace
}  // namespace stackscope::native

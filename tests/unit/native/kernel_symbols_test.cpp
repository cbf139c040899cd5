// Kernel addresses named from /proc/kallsyms: the parser on known text, and the symbolizer on
// this machine's kernel when its addresses are readable (root or kptr_restrict=0).
#include "native/kernel_symbols.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "native/symbolizer.h"

namespace stackscope::native {
namespace {

std::string nameAt(KernelSymbols& symbols, uint64_t address) {
  SymbolTable::Match match = symbols.find(address);
  return match.name ? match.name : "";
}

TEST(KernelSymbols, ReadsFunctionsOfTheKernelAndItsModules) {
  KernelSymbols symbols;
  symbols.load(
      "ffffffff81000000 T _stext\n"
      "ffffffff81000000 T _text\n"
      "ffffffff81000100 t do_one_initcall\n"
      "ffffffff81000200 D some_data\n"             // not a function: left out
      "ffffffff81000300 W weak_function\n"
      "ffffffffc0201000 t ext4_read\t[ext4]\n"
      "ffffffffc0202000 T ext4_write\t[ext4]");  // no newline at the end
  EXPECT_EQ(nameAt(symbols, 0xffffffff81000010), "_stext");  // the first name of two
  EXPECT_EQ(nameAt(symbols, 0xffffffff81000150), "do_one_initcall");
  EXPECT_EQ(symbols.find(0xffffffff81000150).offset, 0x50u);
  // Data is not a function: the function before it reaches up to the next function.
  EXPECT_EQ(nameAt(symbols, 0xffffffff81000250), "do_one_initcall");
  EXPECT_EQ(nameAt(symbols, 0xffffffff81000300), "weak_function");
  EXPECT_EQ(nameAt(symbols, 0xffffffffc0201010), "ext4_read");
  EXPECT_EQ(nameAt(symbols, 0xffffffffc0202000), "ext4_write");
  EXPECT_EQ(symbols.find(0xffffffff80000000).name, nullptr);
}

TEST(KernelSymbols, NamesNothingWhenTheAddressesAreHidden) {
  // What an unprivileged reader sees under kptr_restrict: every address 0.
  KernelSymbols symbols;
  symbols.load("0000000000000000 T _stext\n0000000000000000 t do_one_initcall\n");
  EXPECT_EQ(symbols.find(0xffffffff81000010).name, nullptr);
}

TEST(KernelSymbols, TheSymbolizerShowsAnUnnamedKernelAddressAsSuch) {
  // Below every kernel function, named or hidden: the kernel's, with its address.
  Symbolizer symbolizer(getpid());
  NativeSymbol symbol = symbolizer.symbolize(0xffff800000000010);
  EXPECT_EQ(symbol.module, "[kernel]");
  EXPECT_EQ(symbol.function, "");
  EXPECT_EQ(display(symbol), "[kernel]+0xffff800000000010");
}

// The address kallsyms gives a kernel function, by a parse of its own; 0 if hidden or absent.
uint64_t kallsymsAddress(const char* function) {
  std::ifstream kallsyms("/proc/kallsyms");
  for (std::string line; std::getline(kallsyms, line);) {
    std::istringstream fields(line);
    std::string address, type, name;
    fields >> address >> type >> name;
    if (name == function && (type == "T" || type == "t")) return std::stoull(address, nullptr, 16);
  }
  return 0;
}

TEST(KernelSymbols, TheSymbolizerNamesThisKernelsFunctions) {
  uint64_t address = kallsymsAddress("do_syscall_64");
  if (address == 0) GTEST_SKIP() << "kernel addresses hidden here (kptr_restrict), or no do_syscall_64";
  Symbolizer symbolizer(getpid());
  NativeSymbol symbol = symbolizer.symbolize(address + 3);
  EXPECT_EQ(symbol.function, "do_syscall_64");
  EXPECT_EQ(symbol.module, "[kernel]");
  EXPECT_EQ(symbol.offset, 3u);
}

}  // namespace
}  // namespace stackscope::native

// The sorted function index behind the symbolizer: which name an address gets.
#include "native/symbol_table.h"

#include <string>

#include <gtest/gtest.h>

namespace stackscope::native {
namespace {

std::string nameAt(const SymbolTable& table, uint64_t address) {
  SymbolTable::Match match = table.find(address);
  return match.name ? match.name : "";
}

TEST(SymbolTable, FindsTheFunctionHoldingAnAddressWithTheOffset) {
  SymbolTable table;
  table.add(0x3000, 0x80, "third", SymbolTable::Binding::kGlobal);  // added out of order
  table.add(0x1000, 0x100, "first", SymbolTable::Binding::kGlobal);
  table.add(0x2000, 0x10, "second", SymbolTable::Binding::kLocal);
  table.finish();
  EXPECT_EQ(nameAt(table, 0x1000), "first");
  EXPECT_EQ(table.find(0x10ff).offset, 0xffu);
  EXPECT_EQ(nameAt(table, 0x200f), "second");
  EXPECT_EQ(nameAt(table, 0x307f), "third");
}

TEST(SymbolTable, NamesNothingOutsideEveryFunction) {
  SymbolTable table;
  table.add(0x1000, 0x100, "first", SymbolTable::Binding::kGlobal);
  table.add(0x2000, 0x10, "second", SymbolTable::Binding::kGlobal);
  table.finish();
  EXPECT_EQ(table.find(0xfff).name, nullptr);   // before the first
  EXPECT_EQ(table.find(0x1100).name, nullptr);  // in the gap after first's end
  EXPECT_EQ(table.find(0x2010).name, nullptr);  // past the last
  SymbolTable empty;
  empty.finish();
  EXPECT_EQ(empty.find(0x1000).name, nullptr);
}

TEST(SymbolTable, NamesASharedAddressByItsBestBoundSymbol) {
  SymbolTable table;
  table.add(0x1000, 0x20, "getpid", SymbolTable::Binding::kWeak);
  table.add(0x1000, 0x20, "__getpid", SymbolTable::Binding::kGlobal);
  table.add(0x1000, 0x20, "local_alias", SymbolTable::Binding::kLocal);
  table.finish();
  EXPECT_EQ(nameAt(table, 0x1010), "__getpid");
}

TEST(SymbolTable, NamesASharedAddressByItsPublicNameRatherThanGlibcsInternalAlias) {
  // libc6-dbg's .symtab: both local, the internal alias first by name.
  SymbolTable table;
  table.add(0x1000, 0x20, "__GI___lll_lock_wait", SymbolTable::Binding::kLocal);
  table.add(0x1000, 0x20, "__lll_lock_wait", SymbolTable::Binding::kLocal);
  table.finish();
  EXPECT_EQ(nameAt(table, 0x1004), "__lll_lock_wait");
}

TEST(SymbolTable, LetsASizelessSymbolReachTheNextOne) {
  SymbolTable table;
  table.add(0x1000, 0, "assembler_label", SymbolTable::Binding::kGlobal);
  table.add(0x1400, 0x10, "after", SymbolTable::Binding::kGlobal);
  table.add(0x2000, 0, "last_label", SymbolTable::Binding::kGlobal);
  table.finish();
  EXPECT_EQ(nameAt(table, 0x13ff), "assembler_label");
  EXPECT_EQ(nameAt(table, 0x1400), "after");
  EXPECT_EQ(nameAt(table, 0x2000), "last_label");
  EXPECT_EQ(table.find(0x2001).name, nullptr);  // nothing bounds the last one: its first byte only
}

}  // namespace
}  // namespace stackscope::native

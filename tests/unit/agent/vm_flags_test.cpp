// The flag table reached through a fake VMStructs table laid out the way HotSpot exports it:
// entries with type/field names, static addresses and instance offsets, the layout itself
// described by exported integers.
#include "agent/vm_flags.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <string>

#include "fake_vm_tables.h"

namespace stackscope::agent {
namespace {

// Shaped like HotSpot's JVMFlag: the fields are found by offset, never by this declaration.
struct FakeFlag {
  int type;
  const char* name;
  void* addr;
  int flags;
};

bool g_debug_non_safepoints = false;
bool g_use_perf_data = true;
FakeFlag g_flag_array[] = {{0, "UsePerfData", &g_use_perf_data, 0}, {0, "DebugNonSafepoints", &g_debug_non_safepoints, 0}};
FakeFlag* g_flags = g_flag_array;
size_t g_num_flags = 2;

struct FakeVm {
  FakeStructEntry structs[5];
  FakeTypeEntry types[2];
  FakeStructEntry* structs_pointer = structs;
  FakeTypeEntry* types_pointer = types;
  std::map<std::string, uint64_t> layout;

  explicit FakeVm(const char* flag_type) {
    structs[0] = {flag_type, "_name", "const char*", 0, offsetof(FakeFlag, name), nullptr};
    structs[1] = {flag_type, "_addr", nullptr, 0, offsetof(FakeFlag, addr), nullptr};
    structs[2] = {flag_type, "flags", "JVMFlag*", 1, 0, &g_flags};
    structs[3] = {flag_type, "numFlags", "size_t", 1, 0, &g_num_flags};
    structs[4] = {nullptr, nullptr, nullptr, 0, 0, nullptr};
    types[0] = {flag_type, nullptr, 0, 0, 0, sizeof(FakeFlag)};
    types[1] = {nullptr, nullptr, 0, 0, 0, 0};
    layout = fakeTableLayout();
  }
};

FakeVm* g_vm = nullptr;
const char* g_missing_symbol = nullptr;

void* fakeLookup(const char* name) {
  if (g_missing_symbol && std::strcmp(name, g_missing_symbol) == 0) return nullptr;
  if (std::strcmp(name, "gHotSpotVMStructs") == 0) return &g_vm->structs_pointer;
  if (std::strcmp(name, "gHotSpotVMTypes") == 0) return &g_vm->types_pointer;
  auto it = g_vm->layout.find(name);
  return it == g_vm->layout.end() ? nullptr : &it->second;
}

class VmFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_debug_non_safepoints = false;
    g_missing_symbol = nullptr;
  }
  void TearDown() override { g_vm = nullptr; }
};

TEST_F(VmFlagsTest, ReadsFieldsStaticAddressesAndSizes) {
  FakeVm vm("JVMFlag");
  g_vm = &vm;
  VmStructs structs;
  ASSERT_TRUE(structs.bind(fakeLookup));
  EXPECT_EQ(structs.fieldOffset("JVMFlag", "_addr"), static_cast<int64_t>(offsetof(FakeFlag, addr)));
  EXPECT_EQ(structs.staticAddress("JVMFlag", "numFlags"), &g_num_flags);
  EXPECT_EQ(structs.typeSize("JVMFlag"), sizeof(FakeFlag));
  // A static field has no offset and an instance field no address.
  EXPECT_EQ(structs.fieldOffset("JVMFlag", "flags"), -1);
  EXPECT_EQ(structs.staticAddress("JVMFlag", "_name"), nullptr);
  EXPECT_EQ(structs.fieldOffset("Thread", "_osthread"), -1);
  EXPECT_EQ(structs.typeSize("Thread"), 0u);
}

TEST_F(VmFlagsTest, TurnsOnAnOffFlagOnceAndLeavesOthersAlone) {
  FakeVm vm("JVMFlag");
  g_vm = &vm;
  VmStructs structs;
  ASSERT_TRUE(structs.bind(fakeLookup));
  EXPECT_EQ(findVmFlag(structs, "DebugNonSafepoints"), &g_debug_non_safepoints);
  EXPECT_EQ(turnOnBoolFlag(structs, "DebugNonSafepoints"), FlagOutcome::TurnedOn);
  EXPECT_TRUE(g_debug_non_safepoints);
  EXPECT_EQ(turnOnBoolFlag(structs, "DebugNonSafepoints"), FlagOutcome::WasOn);
  EXPECT_TRUE(g_use_perf_data);
  EXPECT_EQ(turnOnBoolFlag(structs, "NoSuchFlag"), FlagOutcome::Unknown);
}

TEST_F(VmFlagsTest, FindsTheOlderFlagTypeName) {
  FakeVm vm("Flag");  // JDK 8 calls the type Flag
  g_vm = &vm;
  VmStructs structs;
  ASSERT_TRUE(structs.bind(fakeLookup));
  EXPECT_EQ(turnOnBoolFlag(structs, "DebugNonSafepoints"), FlagOutcome::TurnedOn);
}

TEST_F(VmFlagsTest, AMissingLayoutSymbolLeavesEverythingUnknown) {
  FakeVm vm("JVMFlag");
  g_vm = &vm;
  g_missing_symbol = "gHotSpotVMStructEntryAddressOffset";
  VmStructs structs;
  EXPECT_FALSE(structs.bind(fakeLookup));
  EXPECT_FALSE(structs.bound());
  EXPECT_EQ(findVmFlag(structs, "DebugNonSafepoints"), nullptr);
  EXPECT_FALSE(g_debug_non_safepoints);
}

TEST_F(VmFlagsTest, AZeroStrideIsRefused) {
  FakeVm vm("JVMFlag");
  vm.layout["gHotSpotVMStructEntryArrayStride"] = 0;
  g_vm = &vm;
  VmStructs structs;
  EXPECT_FALSE(structs.bind(fakeLookup));
}

}  // namespace
}  // namespace stackscope::agent

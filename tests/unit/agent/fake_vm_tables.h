// HotSpot's exported structure tables (vm_structs.h), faked for unit tests: entries laid out
// as HotSpot lays them out, the layout itself described by the exported integers that
// fakeTableLayout() gives. Each test fills its own entries, each table ending in a null entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace stackscope::agent {

struct FakeStructEntry {
  const char* type_name;
  const char* field_name;
  const char* type_string;
  int32_t is_static;
  uint64_t offset;
  void* address;
};

struct FakeTypeEntry {
  const char* type_name;
  const char* superclass;
  int32_t is_oop;
  int32_t is_integer;
  int32_t is_unsigned;
  uint64_t size;
};

struct FakeIntConstant {
  const char* name;
  int32_t value;
};

// The exported integers that describe the three tables' entries.
inline std::map<std::string, uint64_t> fakeTableLayout() {
  return {{"gHotSpotVMStructEntryArrayStride", sizeof(FakeStructEntry)},
          {"gHotSpotVMStructEntryTypeNameOffset", offsetof(FakeStructEntry, type_name)},
          {"gHotSpotVMStructEntryFieldNameOffset", offsetof(FakeStructEntry, field_name)},
          {"gHotSpotVMStructEntryTypeStringOffset", offsetof(FakeStructEntry, type_string)},
          {"gHotSpotVMStructEntryIsStaticOffset", offsetof(FakeStructEntry, is_static)},
          {"gHotSpotVMStructEntryOffsetOffset", offsetof(FakeStructEntry, offset)},
          {"gHotSpotVMStructEntryAddressOffset", offsetof(FakeStructEntry, address)},
          {"gHotSpotVMTypeEntryArrayStride", sizeof(FakeTypeEntry)},
          {"gHotSpotVMTypeEntryTypeNameOffset", offsetof(FakeTypeEntry, type_name)},
          {"gHotSpotVMTypeEntrySizeOffset", offsetof(FakeTypeEntry, size)},
          {"gHotSpotVMIntConstantEntryArrayStride", sizeof(FakeIntConstant)},
          {"gHotSpotVMIntConstantEntryNameOffset", offsetof(FakeIntConstant, name)},
          {"gHotSpotVMIntConstantEntryValueOffset", offsetof(FakeIntConstant, value)}};
}

}  // namespace stackscope::agent

#include "agent/vm_structs.h"

#include <dlfcn.h>

#include <cstring>

namespace stackscope::agent {

namespace {

template <typename T>
bool readSymbol(SymbolLookup lookup, const char* name, T& out) {
  const void* address = lookup(name);
  if (!address) return false;
  std::memcpy(&out, address, sizeof out);
  return true;
}

template <typename T>
T fieldAt(const char* entry, uint64_t offset) {
  T value;
  std::memcpy(&value, entry + offset, sizeof value);
  return value;
}

}  // namespace

bool VmStructs::bind(SymbolLookup lookup) {
  structs_ = nullptr;
  int_constants_ = nullptr;
  has_type_strings_ = false;
  const char* structs = nullptr;
  const char* types = nullptr;
  const bool ok = readSymbol(lookup, "gHotSpotVMStructs", structs) &&
                  readSymbol(lookup, "gHotSpotVMStructEntryArrayStride", struct_stride_) &&
                  readSymbol(lookup, "gHotSpotVMStructEntryTypeNameOffset", struct_type_name_) &&
                  readSymbol(lookup, "gHotSpotVMStructEntryFieldNameOffset", struct_field_name_) &&
                  readSymbol(lookup, "gHotSpotVMStructEntryIsStaticOffset", struct_is_static_) &&
                  readSymbol(lookup, "gHotSpotVMStructEntryOffsetOffset", struct_offset_) &&
                  readSymbol(lookup, "gHotSpotVMStructEntryAddressOffset", struct_address_) &&
                  readSymbol(lookup, "gHotSpotVMTypes", types) &&
                  readSymbol(lookup, "gHotSpotVMTypeEntryArrayStride", type_stride_) &&
                  readSymbol(lookup, "gHotSpotVMTypeEntryTypeNameOffset", type_type_name_) &&
                  readSymbol(lookup, "gHotSpotVMTypeEntrySizeOffset", type_size_);
  // A zero stride would loop forever on the first entry.
  if (!ok || !structs || !types || struct_stride_ == 0 || type_stride_ == 0) return false;
  structs_ = structs;
  types_ = types;
  has_type_strings_ = readSymbol(lookup, "gHotSpotVMStructEntryTypeStringOffset", struct_type_string_);
  const char* constants = nullptr;
  if (readSymbol(lookup, "gHotSpotVMIntConstants", constants) &&
      readSymbol(lookup, "gHotSpotVMIntConstantEntryArrayStride", int_constant_stride_) &&
      readSymbol(lookup, "gHotSpotVMIntConstantEntryNameOffset", int_constant_name_) &&
      readSymbol(lookup, "gHotSpotVMIntConstantEntryValueOffset", int_constant_value_) && int_constant_stride_ != 0) {
    int_constants_ = constants;
  }
  return true;
}

const char* VmStructs::stringAt(const char* entry, uint64_t offset) { return fieldAt<const char*>(entry, offset); }

const char* VmStructs::findField(std::string_view type, std::string_view field) const {
  if (!structs_) return nullptr;
  for (const char* entry = structs_;; entry += struct_stride_) {
    const char* type_name = stringAt(entry, struct_type_name_);
    if (!type_name) return nullptr;
    const char* field_name = stringAt(entry, struct_field_name_);
    if (field_name && type == type_name && field == field_name) return entry;
  }
}

void* VmStructs::staticAddress(std::string_view type, std::string_view field) const {
  const char* entry = findField(type, field);
  if (!entry || fieldAt<int32_t>(entry, struct_is_static_) == 0) return nullptr;
  return fieldAt<void*>(entry, struct_address_);
}

int64_t VmStructs::fieldOffset(std::string_view type, std::string_view field) const {
  const char* entry = findField(type, field);
  if (!entry || fieldAt<int32_t>(entry, struct_is_static_) != 0) return -1;
  return static_cast<int64_t>(fieldAt<uint64_t>(entry, struct_offset_));
}

uint64_t VmStructs::typeSize(std::string_view type) const {
  if (!types_) return 0;
  for (const char* entry = types_;; entry += type_stride_) {
    const char* type_name = stringAt(entry, type_type_name_);
    if (!type_name) return 0;
    if (type == type_name) return fieldAt<uint64_t>(entry, type_size_);
  }
}

uint64_t VmStructs::fieldSize(std::string_view type, std::string_view field) const {
  const char* entry = has_type_strings_ ? findField(type, field) : nullptr;
  const char* type_string = entry ? stringAt(entry, struct_type_string_) : nullptr;
  return type_string ? typeSize(type_string) : 0;
}

bool VmStructs::intConstant(std::string_view name, int32_t& value) const {
  if (!int_constants_) return false;
  for (const char* entry = int_constants_;; entry += int_constant_stride_) {
    const char* entry_name = stringAt(entry, int_constant_name_);
    if (!entry_name) return false;
    if (name == entry_name) {
      value = fieldAt<int32_t>(entry, int_constant_value_);
      return true;
    }
  }
}

void* lookupJvmSymbol(const char* name) { return dlsym(RTLD_DEFAULT, name); }

}  // namespace stackscope::agent

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

void* lookupJvmSymbol(const char* name) { return dlsym(RTLD_DEFAULT, name); }

}  // namespace stackscope::agent

// HotSpot describes its own data structures, for its serviceability agent, in tables that
// libjvm.so exports: gHotSpotVMStructs (one entry per field: type and field name, an offset
// for instance fields or an address for static ones) and gHotSpotVMTypes (type sizes). The
// layout of the entries is itself exported (gHotSpotVMStructEntry*Offset and friends), so the
// tables can be read without compiling against HotSpot. They give the agent what no JVMTI
// function offers, such as the flag table (vm_flags.h).
//
// Reading only: nothing here writes to the VM. Entries whose names are null end each table.
#pragma once

#include <cstdint>
#include <string_view>

namespace stackscope::agent {

// Looks up an exported data symbol: its address, or nullptr. dlsym in the agent, a fake
// table in tests.
using SymbolLookup = void* (*)(const char* name);

class VmStructs {
 public:
  // Reads the exported layout; false when a symbol is missing (not HotSpot, or too old).
  bool bind(SymbolLookup lookup);
  bool bound() const { return structs_ != nullptr; }

  // The address of a static field, or nullptr when the table does not list it.
  void* staticAddress(std::string_view type, std::string_view field) const;
  // The offset of an instance field within its type, or -1 when not listed.
  int64_t fieldOffset(std::string_view type, std::string_view field) const;
  // The size of a type in bytes, or 0 when not listed.
  uint64_t typeSize(std::string_view type) const;
  // The size of an instance field's declared type (int, u2, int16_t, ...): fields change
  // width between JDKs. 0 when unknown (not listed, or a table without type strings).
  uint64_t fieldSize(std::string_view type, std::string_view field) const;
  // A named integer constant (gHotSpotVMIntConstants: enum values such as
  // "CodeBlobKind::Nmethod"); false when not listed.
  bool intConstant(std::string_view name, int32_t& value) const;

 private:
  // The entry describing type.field, or nullptr.
  const char* findField(std::string_view type, std::string_view field) const;
  static const char* stringAt(const char* entry, uint64_t offset);

  const char* structs_ = nullptr;
  uint64_t struct_stride_ = 0;
  uint64_t struct_type_name_ = 0;
  uint64_t struct_field_name_ = 0;
  uint64_t struct_is_static_ = 0;
  uint64_t struct_offset_ = 0;
  uint64_t struct_address_ = 0;
  bool has_type_strings_ = false;  // the two optional parts: older tables and fakes may lack them
  uint64_t struct_type_string_ = 0;
  const char* int_constants_ = nullptr;
  uint64_t int_constant_stride_ = 0;
  uint64_t int_constant_name_ = 0;
  uint64_t int_constant_value_ = 0;
  const char* types_ = nullptr;
  uint64_t type_stride_ = 0;
  uint64_t type_type_name_ = 0;
  uint64_t type_size_ = 0;
};

// The JVM's symbols, found with dlsym in the process (libjvm.so is already loaded when an
// agent is).
void* lookupJvmSymbol(const char* name);

}  // namespace stackscope::agent

#include "agent/vm_flags.h"

#include <cstdint>
#include <cstring>

namespace stackscope::agent {

void* findVmFlag(const VmStructs& vm, std::string_view name) {
  for (const char* type : {"JVMFlag", "Flag"}) {
    void* const* table_address = static_cast<void* const*>(vm.staticAddress(type, "flags"));
    const void* count_address = vm.staticAddress(type, "numFlags");
    const int64_t name_offset = vm.fieldOffset(type, "_name");
    const int64_t addr_offset = vm.fieldOffset(type, "_addr");
    const uint64_t size = vm.typeSize(type);
    if (!table_address || !count_address || name_offset < 0 || addr_offset < 0 || size == 0) continue;
    const char* table = static_cast<const char*>(*table_address);
    size_t count = 0;
    std::memcpy(&count, count_address, sizeof count);
    for (size_t i = 0; table && i < count; ++i) {
      const char* flag = table + i * size;
      const char* flag_name = nullptr;
      std::memcpy(&flag_name, flag + name_offset, sizeof flag_name);
      if (flag_name && name == flag_name) {
        void* value = nullptr;
        std::memcpy(&value, flag + addr_offset, sizeof value);
        return value;
      }
    }
  }
  return nullptr;
}

FlagOutcome turnOnBoolFlag(const VmStructs& vm, std::string_view name) {
  auto* value = static_cast<bool*>(findVmFlag(vm, name));
  if (!value) return FlagOutcome::Unknown;
  if (*value) return FlagOutcome::WasOn;
  *value = true;
  return FlagOutcome::TurnedOn;
}

const char* flagOutcomeName(FlagOutcome outcome) {
  switch (outcome) {
    case FlagOutcome::WasOn: return "on (already)";
    case FlagOutcome::TurnedOn: return "on";
    case FlagOutcome::Unknown: break;
  }
  return "unknown (flag table not found)";
}

}  // namespace stackscope::agent

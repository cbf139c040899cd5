// The JVM's command-line flags (-XX:…), reached through the flag table that VMStructs
// describes (vm_structs.h): JVMFlag::flags in JDK 11+, Flag::flags in JDK 8. Setting a flag
// this way is what `-XX:+Flag` would have done, without the user having to remember it;
// diagnostic flags need no -XX:+UnlockDiagnosticVMOptions here.
#pragma once

#include <string_view>

#include "agent/vm_structs.h"

namespace stackscope::agent {

// The value storage of the flag named `name`, or nullptr when the table or the flag is unknown.
void* findVmFlag(const VmStructs& vm, std::string_view name);

// What became of a boolean flag the agent wants on.
enum class FlagOutcome : uint8_t {
  Unknown = 0,      // the flag table or the flag could not be found: nothing was changed
  WasOn = 1,        // the user (or the VM) had it on already
  TurnedOn = 2,     // the agent turned it on
};

// Turns the bool flag `name` on. Call it while the VM starts (Agent_OnLoad) or accept that
// code compiled before the call keeps the old setting.
FlagOutcome turnOnBoolFlag(const VmStructs& vm, std::string_view name);

const char* flagOutcomeName(FlagOutcome outcome);

}  // namespace stackscope::agent

// A function a loaded module keeps to itself (a static function: in the file's .symtab, not
// among its dynamic symbols), found by its name. HotSpot registers some natives from its own
// static functions (Unsafe.park is bound to Unsafe_Park): an agent attached after they were
// bound has no other way to learn the address it must call on (bound_natives.h). Debian's and
// Temurin's libjvm.so keep their .symtab.
//
// The module's file is mapped read-only for the look and unmapped after it; every offset read
// from it is checked against the file's size, so a truncated or foreign file gives null, never
// a fault.
#pragma once

#include <cstdint>

namespace stackscope::agent {

// The address of the function `name` in the loaded module that holds `in_module`; null when
// its file has no .symtab, no such function, or cannot be read.
void* localFunction(const void* in_module, const char* name);

// The address `name` has in the ELF file at `path` loaded at `load_bias` (0 when none).
uintptr_t localFunctionInFile(const char* path, uintptr_t load_bias, const char* name);

}  // namespace stackscope::agent

// Names the native frames (mixed mode) that a recording keeps as addresses: each method with a
// module and an address (docs/format.md, Method) gets its function's name, demangled, and its
// module's file name, read from the module's file on this machine (native/file_symbolizer.h).
// A module that is gone or was replaced (another build id), or a kernel address recorded in
// another boot, keeps the name the writer gave it, or, written without one, is named by its
// module's file name and address ("libjvm.so+0x5a3c10", "[kernel]+0x…").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/recording.h"

namespace stackscope::analysis {

// A Method record's native fields (format::MethodRecord): string ids and the address.
struct NativeAddress {
  uint32_t method = 0;
  uint32_t module = 0;
  uint32_t build_id = 0;
  uint64_t address = 0;
};

// A frame's name and module file, found on this machine.
struct NativeName {
  uint32_t method = 0;
  std::string name;
  std::string module;
};

// The names of the frames whose module is found (the recording is only read).
std::vector<NativeName> findNativeNames(const Recording& recording, const std::vector<NativeAddress>& frames);
// Gives each method its name and module, as strings appended to the recording's.
void applyNativeNames(Recording& recording, const std::vector<NativeName>& names);
// Both.
void nameNativeFrames(Recording& recording, const std::vector<NativeAddress>& frames);

}  // namespace stackscope::analysis

// The modules (files mapped executable) of a process, from /proc/PID/maps alone: what names a
// native frame "module+0xOFF" when the symbolizer (libdw) is not at hand. No libdw, no libelf:
// the JVM agent links this and stays loadable where libdw1 is not installed.
// Not for signal handlers (opens a file, allocates).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stackscope::native {

struct MappedModule {
  uint64_t start = 0;  // the executable mapping
  uint64_t end = 0;
  uint64_t base = 0;   // where the file's offset 0 is mapped: pc - base is an ELF address of a shared library
  std::string name;    // the file's basename ("libz.so.1.2.13", "libx.so (deleted)"), or "[vdso]"
};

// The executable file mappings (and the vDSO) listed in a /proc/PID/maps text, by address.
std::vector<MappedModule> parseModuleMaps(const std::string& maps);

// Reads /proc/PID/maps; empty if it cannot be read.
std::vector<MappedModule> readModuleMaps(pid_t pid);

// The module whose executable mapping holds `pc`, in a list sorted by address; null if none.
const MappedModule* moduleHolding(const std::vector<MappedModule>& modules, uint64_t pc);

}  // namespace stackscope::native

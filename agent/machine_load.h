// Whole-machine CPU load from /proc/stat, for status reports: the process's own load alone
// cannot tell "my program is slow" from "the machine is busy with something else".
#pragma once

#include <cstdint>

namespace stackscope::agent {

// Busy and total jiffies of all CPUs together.
struct MachineCpuTimes {
  uint64_t busy = 0;
  uint64_t total = 0;
};

// Parses the "cpu " line of /proc/stat's text; false when it is not there.
bool parseMachineCpuTimes(const char* text, MachineCpuTimes& out);
// Reads /proc/stat (not async-signal-safe: the writer thread only).
bool readMachineCpuTimes(MachineCpuTimes& out);
// Machine CPU load between two readings in permille (1000 = every CPU busy), plus one, so
// that 0 stays "not measured" (format::StatusRecord::machine_cpu_permille_plus1).
uint32_t machineLoadPlusOne(const MachineCpuTimes& before, const MachineCpuTimes& after);

}  // namespace stackscope::agent

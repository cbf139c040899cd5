// The threads of a process and the CPU time the kernel charged them, read from /proc: what
// sampled CPU is checked against, and how a profiler of a whole process finds its threads.
// Not for signal handlers (these open files and allocate).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace stackscope::native {

struct ProcessThread {
  pid_t tid = 0;
  std::string name;  // the kernel's comm: at most 15 bytes (pthread_setname_np, prctl)
};

// Every thread of `pid` found in /proc/PID/task, in tid order. A thread that exits during the
// scan is left out; an unreadable or absent process gives an empty list.
std::vector<ProcessThread> listThreads(pid_t pid);

// User + system CPU time, in ns, of thread `tid` of `pid` (/proc/PID/task/TID/stat) or of the
// whole process (/proc/PID/stat: its live threads and the ones that ended). -1 if it cannot be
// read (gone). The kernel counts in clock ticks (sysconf(_SC_CLK_TCK), 100 Hz here), so the
// figure moves in steps of 10 ms.
int64_t threadCpuTimeNs(pid_t pid, pid_t tid);
int64_t processCpuTimeNs(pid_t pid);

// What the profilers use of a /proc/.../stat text.
struct ThreadStat {
  char state = 0;           // field 3, the scheduler's: 'R' running or runnable, 'S' asleep, 'D' ...
  int64_t cpu_ticks = -1;   // utime + stime (fields 14, 15) in clock ticks; -1 if absent or damaged
  uint64_t start_time = 0;  // field 22: when the thread started, in clock ticks since boot; 0 if absent
};
// False if malformed (no state). The command name in parentheses may hold anything, ')' and
// spaces included: the fields follow the last ')'.
bool parseStat(const char* text, size_t size, ThreadStat& out);
// Thread `tid` of process `pid`; false if it cannot be read (it ended).
bool readThreadStat(pid_t pid, pid_t tid, ThreadStat& out);

// The utime + stime fields of a stat text, in clock ticks; -1 if malformed.
int64_t parseStatCpuTicks(const char* text, size_t size);

}  // namespace stackscope::native

// Clocks the agent reads. All of them are async-signal-safe (clock_gettime).
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstdint>

namespace stackscope::agent {

int64_t monotonicNs();
int64_t realtimeNs();

// The CPU-time clock of thread `tid` of this process, encoded as the kernel does for
// per-thread CPUCLOCK_SCHED clocks: lets the wall sampler read any thread's CPU time
// without a pthread_t, which JVMTI does not give us.
inline clockid_t threadCpuClock(pid_t tid) { return static_cast<clockid_t>((~static_cast<clockid_t>(tid)) << 3) | 6; }

// CPU time consumed by thread `tid` of this process, or -1 if it cannot be read (exited).
int64_t threadCpuTimeNs(pid_t tid);

// CPU time consumed by the calling thread.
int64_t currentThreadCpuTimeNs();

// Process CPU load over an interval in permille of all CPUs: 1000 = every CPU busy.
uint32_t cpuLoadPermille(int64_t cpu_delta_ns, int64_t wall_delta_ns, int cpus);

}  // namespace stackscope::agent

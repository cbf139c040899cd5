#include "agent/clocks.h"

namespace stackscope::agent {

namespace {
int64_t readClock(clockid_t clock) {
  timespec ts;
  if (clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

int64_t monotonicNs() { return readClock(CLOCK_MONOTONIC); }
int64_t realtimeNs() { return readClock(CLOCK_REALTIME); }
int64_t threadCpuTimeNs(pid_t tid) { return readClock(threadCpuClock(tid)); }
int64_t currentThreadCpuTimeNs() { return readClock(CLOCK_THREAD_CPUTIME_ID); }

uint32_t cpuLoadPermille(int64_t cpu_delta_ns, int64_t wall_delta_ns, int cpus) {
  if (cpu_delta_ns <= 0 || wall_delta_ns <= 0 || cpus <= 0) return 0;
  const double load = static_cast<double>(cpu_delta_ns) / static_cast<double>(wall_delta_ns) / cpus;
  if (load >= 1.0) return 1000;
  return static_cast<uint32_t>(load * 1000.0 + 0.5);
}

}  // namespace stackscope::agent

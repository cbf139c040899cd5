#include "agent/machine_load.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace stackscope::agent {

bool readMachineCpuTimes(MachineCpuTimes& out) {
  char text[512];
  const int fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  return parseMachineCpuTimes(text, out);
}

bool parseMachineCpuTimes(const char* text, MachineCpuTimes& out) {
  if (std::strncmp(text, "cpu ", 4) != 0) return false;
  // user nice system idle iowait irq softirq steal [guest guest_nice, already in user/nice]
  unsigned long long v[8] = {};
  const int fields = std::sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                                 &v[5], &v[6], &v[7]);
  if (fields < 4) return false;
  out.total = 0;
  for (int i = 0; i < fields; ++i) out.total += v[i];
  out.busy = out.total - v[3] - (fields > 4 ? v[4] : 0);  // idle and iowait are not busy
  return true;
}

uint32_t machineLoadPlusOne(const MachineCpuTimes& before, const MachineCpuTimes& after) {
  if (after.total <= before.total || after.busy < before.busy) return 0;
  const uint64_t busy = after.busy - before.busy, total = after.total - before.total;
  return static_cast<uint32_t>(std::min<uint64_t>(1000, (busy * 1000 + total / 2) / total)) + 1;
}

}  // namespace stackscope::agent

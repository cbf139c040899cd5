#include "native/process_threads.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace stackscope::native {

namespace {

// The whole of a small /proc file (they are generated at read time: size unknown in advance);
// -1 if it cannot be opened, as when the thread has exited.
ssize_t readSmallFile(const char* path, char* buffer, size_t capacity) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  size_t used = 0;
  while (used + 1 < capacity) {
    ssize_t n = read(fd, buffer + used, capacity - 1 - used);
    if (n < 0 && errno == EINTR) continue;  // a profiling signal is not the thread's end
    if (n < 0) {
      close(fd);
      return -1;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  buffer[used] = '\0';
  return static_cast<ssize_t>(used);
}

int64_t cpuTimeNsFromStat(const char* path) {
  char text[1024];
  ssize_t size = readSmallFile(path, text, sizeof text);
  if (size <= 0) return -1;
  int64_t ticks = parseStatCpuTicks(text, static_cast<size_t>(size));
  if (ticks < 0) return -1;
  static const long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (ticks_per_second <= 0) return -1;
  return ticks * (1000000000 / ticks_per_second);
}

bool parseTid(const char* text, pid_t& tid) {
  if (*text < '1' || *text > '9') return false;  // also skips "." and ".."
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value <= 0) return false;
  tid = static_cast<pid_t>(value);
  return true;
}

}  // namespace

bool parseStat(const char* text, size_t size, ThreadStat& out) {
  const char* close_paren = nullptr;
  for (size_t i = 0; i < size; i++)
    if (text[i] == ')') close_paren = text + i;
  if (close_paren == nullptr) return false;
  out = ThreadStat{};
  // After ") ": field 3 (state) onwards, separated by single spaces.
  const char* p = close_paren + 1;
  const char* end = text + size;
  int64_t utime = -1, stime = -1;
  for (int field = 3; field <= 22; field++) {
    while (p < end && *p == ' ') p++;
    const char* start = p;
    while (p < end && *p != ' ' && *p != '\n') p++;
    if (p == start) break;  // the text ends here
    if (field == 3) {
      out.state = *start;
      continue;
    }
    if (field != 14 && field != 15 && field != 22) continue;
    int64_t value = 0;
    for (const char* c = start; c < p && value >= 0; c++) value = *c >= '0' && *c <= '9' ? value * 10 + (*c - '0') : -1;
    if (field == 14) utime = value;
    if (field == 15) stime = value;
    if (field == 22 && value > 0) out.start_time = static_cast<uint64_t>(value);
  }
  if (utime >= 0 && stime >= 0) out.cpu_ticks = utime + stime;
  return out.state != 0;
}

int64_t parseStatCpuTicks(const char* text, size_t size) {
  ThreadStat stat;
  return parseStat(text, size, stat) ? stat.cpu_ticks : -1;
}

bool readThreadStat(pid_t pid, pid_t tid, ThreadStat& out) {
  char path[96];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
  char text[1024];
  const ssize_t size = readSmallFile(path, text, sizeof text);
  return size > 0 && parseStat(text, static_cast<size_t>(size), out);
}

std::vector<ProcessThread> listThreads(pid_t pid) {
  std::vector<ProcessThread> threads;
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task", static_cast<int>(pid));
  DIR* dir = opendir(path);
  if (dir == nullptr) return threads;
  while (dirent* entry = readdir(dir)) {
    ProcessThread thread;
    if (!parseTid(entry->d_name, thread.tid)) continue;
    char comm_path[96];
    std::snprintf(comm_path, sizeof comm_path, "/proc/%d/task/%d/comm", static_cast<int>(pid),
                  static_cast<int>(thread.tid));
    char comm[64];
    ssize_t size = readSmallFile(comm_path, comm, sizeof comm);
    if (size <= 0) continue;  // exited since readdir listed it
    if (comm[size - 1] == '\n') comm[--size] = '\0';
    thread.name.assign(comm, static_cast<size_t>(size));
    threads.push_back(std::move(thread));
  }
  closedir(dir);
  std::sort(threads.begin(), threads.end(),
            [](const ProcessThread& a, const ProcessThread& b) { return a.tid < b.tid; });
  return threads;
}

int64_t threadCpuTimeNs(pid_t pid, pid_t tid) {
  char path[96];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/stat", static_cast<int>(pid), static_cast<int>(tid));
  return cpuTimeNsFromStat(path);
}

int64_t processCpuTimeNs(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  return cpuTimeNsFromStat(path);
}

}  // namespace stackscope::native

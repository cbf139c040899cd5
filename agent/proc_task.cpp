#include "agent/proc_task.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace stackscope::agent {

namespace {

// Reads a small /proc file whole; -1 on failure.
ssize_t readSmallFile(const char* path, char* buffer, size_t size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t got = read(fd, buffer, size);
  close(fd);
  return got;
}

}  // namespace

bool parseTaskStat(const char* text, size_t size, TaskStat& out) {
  const char* end = text + size;
  const char* paren = nullptr;
  for (const char* p = text; p < end; ++p) {
    if (*p == ')') paren = p;
  }
  // "pid (comm) S f4 f5 ...": the state is field 3, two characters after the last ')'.
  if (!paren || end - paren < 3 || paren[1] != ' ') return false;
  out.state = paren[2];
  out.start_time = 0;
  const char* p = paren + 3;
  for (int field = 3; field < 22 && p < end; ++p) {
    if (*p == ' ') ++field;
    if (field == 22) {
      ++p;
      uint64_t value = 0;
      bool digits = false;
      for (; p < end && *p >= '0' && *p <= '9'; ++p, digits = true) value = value * 10 + static_cast<uint64_t>(*p - '0');
      if (digits) out.start_time = value;
      break;
    }
  }
  return true;
}

bool readTaskStat(pid_t tid, TaskStat& out) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/self/task/%d/stat", static_cast<int>(tid));
  // Field 22 lies within the first ~250 bytes (the name is at most 64 with escapes).
  char text[512];
  const ssize_t size = readSmallFile(path, text, sizeof(text));
  return size > 0 && parseTaskStat(text, static_cast<size_t>(size), out);
}

char osSchedulerState(pid_t tid) {
  TaskStat stat;
  return readTaskStat(tid, stat) ? stat.state : 0;
}

std::vector<TaskName> listTasks() {
  std::vector<TaskName> tasks;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return tasks;
  while (const dirent* entry = readdir(dir)) {
    const pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
    if (tid <= 0) continue;
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/self/task/%d/comm", static_cast<int>(tid));
    char comm[64];
    ssize_t size = readSmallFile(path, comm, sizeof(comm));
    if (size <= 0) continue;  // ended meanwhile
    if (comm[size - 1] == '\n') --size;
    tasks.push_back({tid, std::string(comm, static_cast<size_t>(size))});
  }
  closedir(dir);
  return tasks;
}

std::string osThreadName(const std::string& java_name) { return java_name.substr(0, 15); }

}  // namespace stackscope::agent

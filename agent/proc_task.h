// What the kernel says about the threads of this process (/proc/self/task), for what JVMTI
// does not tell: whether a thread can run now, which OS thread a Java thread is, whether two
// Java threads ran on one OS thread. Not for signal handlers (these open files).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stackscope::agent {

struct TaskStat {
  char state = 0;          // scheduler state: 'R' running or runnable, 'S' asleep, 'D' ...
  uint64_t start_time = 0;  // field 22: when the OS thread started, in clock ticks since boot
};

// Parses a /proc/.../stat text; false if malformed. The command name in parentheses may
// contain anything, ')' included: the fields follow the last ')'.
bool parseTaskStat(const char* text, size_t size, TaskStat& out);

// Thread `tid` of this process; false if it cannot be read (the thread exited).
bool readTaskStat(pid_t tid, TaskStat& out);

// The scheduler state letter of thread `tid`, 0 if unknown.
char osSchedulerState(pid_t tid);

struct TaskName {
  pid_t tid = 0;
  std::string comm;  // the OS thread's name (HotSpot sets it to the Java name's first 15 bytes)
};
std::vector<TaskName> listTasks();

// The OS thread name a Java thread called `java_name` gets: its first 15 bytes.
std::string osThreadName(const std::string& java_name);

}  // namespace stackscope::agent

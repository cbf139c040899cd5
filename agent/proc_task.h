// What the kernel says about the threads of this process (/proc/self/task), for what JVMTI
// does not tell: whether a thread can run now, which OS thread a Java thread is. The reading
// and parsing are the native room's (native/process_threads.h). Not for signal handlers.
#pragma once

#include <sys/types.h>

#include <string>

namespace stackscope::agent {

// The scheduler state letter of thread `tid` of this process, 0 if unknown.
char osSchedulerState(pid_t tid);

// The OS thread name a Java thread called `java_name` gets: its first 15 bytes.
std::string osThreadName(const std::string& java_name);

}  // namespace stackscope::agent

#include "agent/proc_task.h"

#include <unistd.h>

#include "native/process_threads.h"

namespace stackscope::agent {

char osSchedulerState(pid_t tid) {
  native::ThreadStat stat;
  return native::readThreadStat(getpid(), tid, stat) ? stat.state : 0;
}

std::string osThreadName(const std::string& java_name) { return java_name.substr(0, 15); }

}  // namespace stackscope::agent

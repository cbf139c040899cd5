// The JVMs of this machine, as `stackscope list` shows them: pid, main class, user, whether
// the stackscope agent is loaded (the control server's address is the protocol room's:
// protocol/discovery.h).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace stackscope::native {

struct JvmProcess {
  pid_t pid = 0;
  std::string main_class;  // or "-jar app.jar", "-m module/Main"; "" when unknown
  std::string user;
  bool agent_loaded = false;  // libstackscope.so is mapped into it
};

// Every process whose memory maps show libjvm.so, in pid order. Processes of other users
// cannot be read (unless this is root) and are left out.
std::vector<JvmProcess> listJvms();

// The main class from a java command line (NUL-separated, as /proc/PID/cmdline): the first
// argument after the options, "-jar X" or "-m X". "" when there is none (jshell, a launcher
// of another name still gives its first non-option).
std::string mainClassFromCommandLine(const std::string& cmdline);

}  // namespace stackscope::native

// Runs the profiled program as a child process and waits for it, the way a shell would, so
// `stackscope record` can stand in for the command it wraps.
#pragma once

#include <string>
#include <vector>

namespace stackscope::cli {

// Starts argv[0] (searched in PATH) with argv and waits for it. SIGINT, SIGTERM, SIGQUIT and
// SIGHUP sent to stackscope by another process are forwarded to the child. Returns the
// child's exit code, or 128 + N when signal N ended it. Throws UserError when the program
// cannot be started.
int runAndWait(const std::vector<std::string>& argv);

}  // namespace stackscope::cli

// Runs the built `stackscope` command (STACKSCOPE_BIN) the way a user would.
#pragma once

#include <string>

namespace stackscope::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `stackscope <args>` through the shell with `cwd` as working directory; args are
// shell words (quote them as needed). With `timeout_s` > 0 the command runs under
// timeout(1) with no standard input, so a hang fails the test (exit 124) instead of stalling
// the suite: a guard, not a measurement.
CliResult runCli(const std::string& args, const std::string& cwd, int timeout_s = 0);

}  // namespace stackscope::testing

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
// shell words (quote them as needed).
CliResult runCli(const std::string& args, const std::string& cwd);

}  // namespace stackscope::testing

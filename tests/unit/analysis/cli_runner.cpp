#include "cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "fixture.h"

namespace stackscope::testing {

CliResult runCli(const std::string& args, const std::string& cwd, int timeout_s) {
  const std::string out = cwd + "/.stdout", err = cwd + "/.stderr";
  const std::string guard = timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : "";
  const std::string command = "cd '" + cwd + "' && " + guard + "'" STACKSCOPE_BIN "' " + args + " >'" + out + "' 2>'" +
                              err + "'" + (timeout_s > 0 ? " </dev/null" : "");
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readFile(out);
  result.err = readFile(err);
  return result;
}

}  // namespace stackscope::testing

#include "cli_runner.h"

#include <sys/wait.h>

#include <cstdlib>

#include "fixture.h"

namespace stackscope::testing {

CliResult runCli(const std::string& args, const std::string& cwd) {
  const std::string out = cwd + "/.stdout", err = cwd + "/.stderr";
  const std::string command = "cd '" + cwd + "' && '" STACKSCOPE_BIN "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = readFile(out);
  result.err = readFile(err);
  return result;
}

}  // namespace stackscope::testing

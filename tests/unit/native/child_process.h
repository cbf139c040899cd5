// A test program run as a child process, its standard input and output piped to the test:
// the test reads what it prints and ends it by closing its input.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace stackscope::native::testing {

class ChildProcess {
 public:
  // Starts `path` with `args`; pid() is 0 if it could not be started.
  ChildProcess(const std::string& path, const std::vector<std::string>& args);
  ~ChildProcess();  // kills it if it still runs
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  // The next line it prints, without its '\n'; false at the end of its output.
  bool readLine(std::string& line);
  // Closes its input, reads the rest of its output and waits: the exit code, -1 if killed.
  int finish();
  // All lines it printed up to its exit, after closing its input.
  std::vector<std::string> readAllLines();

 private:
  pid_t pid_ = 0;
  int input_ = -1;
  int output_ = -1;
  std::string pending_;
};

}  // namespace stackscope::native::testing

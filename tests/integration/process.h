// Runs a child process with its stdout and stderr captured, under a deadline.
#pragma once

#include <chrono>
#include <string>
#include <sys/types.h>
#include <vector>

namespace it {

struct ProcessResult {
  int exit_code = -1;     // the child's exit status, or -1 if a signal ended it
  int term_signal = 0;    // the signal that ended it, or 0
  bool timed_out = false; // the deadline passed and the child was killed
  std::string out;
  std::string err;
};

// A started child. It runs in its own process group so that a timeout also kills whatever
// it started (`stackscope record` starts the JVM), and the destructor kills a child that
// is still running so a failed test leaves no JVM behind, nor the control files a JVM killed
// with SIGKILL could not remove.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // Reads output until stdout contains `text`; false if the child ends or time runs out first.
  bool waitForStdout(const std::string& text, std::chrono::milliseconds timeout);
  // Reads all output and reaps the child; kills its group if the deadline passes first.
  ProcessResult wait(std::chrono::milliseconds timeout);

 private:
  // Reads whatever is available within `timeout`; false once both pipes are closed.
  bool pump(std::chrono::milliseconds timeout);
  // Kills the child's process group with SIGKILL; the processes it held.
  std::vector<pid_t> killGroup();

  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  ProcessResult result_;
  std::vector<pid_t> killed_;  // killed at the deadline: their control files go once reaped
};

ProcessResult run(const std::vector<std::string>& argv,
                  std::chrono::milliseconds timeout = std::chrono::seconds(120));

}  // namespace it

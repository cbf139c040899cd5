#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace stackscope::native::testing {

ChildProcess::ChildProcess(const std::string& path, const std::vector<std::string>& args) {
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) return;
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    return;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(path.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, path.c_str(), &actions, nullptr, argv.data(), environ) != 0) pid_ = 0;
  posix_spawn_file_actions_destroy(&actions);
  close(to_child[0]);
  close(from_child[1]);
  input_ = to_child[1];
  output_ = from_child[0];
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (input_ >= 0) close(input_);
  if (output_ >= 0) close(output_);
}

bool ChildProcess::readLine(std::string& line) {
  while (true) {
    size_t newline = pending_.find('\n');
    if (newline != std::string::npos) {
      line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return true;
    }
    char buffer[256];
    ssize_t n = output_ >= 0 ? read(output_, buffer, sizeof buffer) : 0;
    if (n <= 0) {  // the end of its output: a last line without '\n' is still a line
      line.swap(pending_);
      pending_.clear();
      return !line.empty();
    }
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

std::vector<std::string> ChildProcess::readAllLines() {
  if (input_ >= 0) {
    close(input_);
    input_ = -1;
  }
  std::vector<std::string> lines;
  std::string line;
  while (readLine(line)) lines.push_back(line);
  return lines;
}

int ChildProcess::finish() {
  readAllLines();
  if (pid_ <= 0) return -1;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace stackscope::native::testing

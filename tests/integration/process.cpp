#include "process.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "protocol/discovery.h"

extern char** environ;

namespace it {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds remaining(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? left : std::chrono::milliseconds(0);
}

// The processes of group `pgid` (/proc/PID/stat's fifth field): a JVM that `stackscope
// record` started is in its group, not a child of the test.
std::vector<pid_t> groupMembers(pid_t pgid) {
  std::vector<pid_t> members;
  DIR* proc = opendir("/proc");
  if (!proc) return members;
  while (const dirent* entry = readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atol(entry->d_name));
    if (pid <= 0) continue;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t name_end = line.rfind(')');  // the name may hold spaces and parentheses
    char state = 0;
    long parent = 0, group = 0;
    if (name_end != std::string::npos &&
        std::sscanf(line.c_str() + name_end + 1, " %c %ld %ld", &state, &parent, &group) == 3 && group == pgid) {
      members.push_back(pid);
    }
  }
  closedir(proc);
  return members;
}

// A JVM's agent removes its control files when the JVM exits, not when it is killed with
// SIGKILL: the test that killed it removes them.
// Said on stderr, so that a test's log shows which JVM it left holding a server.
void removeControlFilesOf(const std::vector<pid_t>& killed) {
  using namespace stackscope::protocol;
  for (const pid_t pid : killed) {
    if (access(addressFilePath(kControlDirectory, pid).c_str(), F_OK) != 0) continue;
    removeControlFiles(kControlDirectory, pid);
    std::fprintf(stderr, "test harness: removed the control files of process %d, killed with SIGKILL\n", pid);
  }
}

}  // namespace

std::vector<pid_t> Child::killGroup() {
  std::vector<pid_t> members = groupMembers(pid_);
  killpg(pid_, SIGKILL);
  return members;
}

Child::Child(const std::vector<std::string>& argv) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = posix_spawn(&pid_, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(out_pipe[1]);
  close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
  if (rc != 0) {
    close(out_fd_);
    close(err_fd_);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
}

Child::~Child() {
  if (pid_ > 0) {
    const std::vector<pid_t> killed = killGroup();
    waitpid(pid_, nullptr, 0);
    removeControlFilesOf(killed);
  }
  if (out_fd_ >= 0) close(out_fd_);
  if (err_fd_ >= 0) close(err_fd_);
}

bool Child::pump(std::chrono::milliseconds timeout) {
  pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
  if (out_fd_ < 0 && err_fd_ < 0) return false;
  int n = poll(fds, 2, static_cast<int>(timeout.count()));  // negative fds are ignored
  if (n < 0 && errno != EINTR) throw std::runtime_error("poll failed");
  std::string* sinks[2] = {&result_.out, &result_.err};
  int* owners[2] = {&out_fd_, &err_fd_};
  for (int i = 0; i < 2 && n > 0; ++i) {
    if (fds[i].revents == 0) continue;
    char buf[65536];
    ssize_t got = read(fds[i].fd, buf, sizeof buf);
    if (got > 0) {
      sinks[i]->append(buf, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      close(*owners[i]);
      *owners[i] = -1;
    }
  }
  return out_fd_ >= 0 || err_fd_ >= 0;
}

bool Child::waitForStdout(const std::string& text, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (result_.out.find(text) == std::string::npos) {
    if (Clock::now() >= deadline || !pump(remaining(deadline))) return false;
  }
  return true;
}

ProcessResult Child::wait(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (pump(remaining(deadline))) {
    if (Clock::now() < deadline) continue;
    if (result_.timed_out) break;  // killed, yet something outside the group holds the pipes
    result_.timed_out = true;
    killed_ = killGroup();
    deadline = Clock::now() + std::chrono::seconds(10);  // time to drain after the kill
  }
  int status = 0;
  waitpid(pid_, &status, 0);
  if (WIFEXITED(status)) result_.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result_.term_signal = WTERMSIG(status);
  // Killed by the test itself (kill -9) or at the deadline.
  if (result_.term_signal == SIGKILL) killed_.push_back(pid_);
  removeControlFilesOf(killed_);
  pid_ = -1;
  return result_;
}

ProcessResult run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  return Child(argv).wait(timeout);
}

}  // namespace it

#include "cli/launch.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "cli/command.h"

namespace stackscope::cli {

namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGQUIT, SIGHUP};

volatile sig_atomic_t g_child = 0;  // read by the signal handler: set once the child exists

// Async-signal-safe: only kill(2). A signal typed at the terminal (Ctrl-C, Ctrl-\) reaches
// the whole foreground process group, the child included, so only signals sent by a process
// (si_code <= 0: kill, sigqueue, tgkill) are forwarded; forwarding the others would deliver
// them twice. Either way stackscope itself stays up to report on the recording.
void forward(int signal, siginfo_t* info, void*) {
  if (g_child > 0 && info && info->si_code <= 0) ::kill(g_child, signal);
}

class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction action {};
    action.sa_sigaction = forward;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &action, &saved_[i]);
  }
  ~SignalForwarding() {
    for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &saved_[i], nullptr);
    g_child = 0;
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  struct sigaction saved_[std::size(kForwarded)] {};
};

int waitFor(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

int runAndWait(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);

  // The child reports a failed exec through this pipe; a successful exec closes it.
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  SignalForwarding forwarding;
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(pipe_fds[0]);
    ::execvp(args[0], args.data());
    const int error = errno;
    (void)!::write(pipe_fds[1], &error, sizeof error);
    ::_exit(127);
  }
  g_child = child;
  ::close(pipe_fds[1]);
  int exec_error = 0;
  ssize_t n;
  while ((n = ::read(pipe_fds[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  ::close(pipe_fds[0]);
  const int code = waitFor(child);
  if (n == sizeof exec_error) throw UserError("cannot run '" + argv[0] + "': " + std::strerror(exec_error));
  return code;
}

}  // namespace stackscope::cli

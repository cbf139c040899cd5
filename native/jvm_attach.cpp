#include "native/jvm_attach.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "native/jvm_perf_data.h"
#include "native/small_file.h"

namespace stackscope::native {

namespace {

std::string procPath(pid_t pid, const char* what) { return "/proc/" + std::to_string(pid) + "/" + what; }

// The value after "Key:" in /proc/PID/status, "" when absent.
std::string statusField(const std::string& status, const char* key) {
  const std::string wanted = std::string("\n") + key + ":";
  const size_t at = ("\n" + status).find(wanted);
  if (at == std::string::npos) return {};
  const size_t start = at + wanted.size() - 1;  // in `status`, past the key
  const size_t end = status.find('\n', start);
  return status.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string userName(uid_t uid) {
  passwd entry{};
  passwd* found = nullptr;
  char buffer[1024];
  if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found) return found->pw_name;
  return "uid " + std::to_string(uid);
}

int64_t monotonicMs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000 + now.tv_nsec / 1'000'000;
}

void sleepMs(int ms) {
  const timespec step{0, ms * 1'000'000L};
  nanosleep(&step, nullptr);
}

AttachResult failure(AttachError error, std::string message) {
  AttachResult result;
  result.error = error;
  result.message = std::move(message);
  return result;
}

// A connected socket to `path`, or -1.
int connectTo(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) return -1;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Creates the trigger file where the JVM looks (its working directory, else its /tmp) and
// sends SIGQUIT, then waits for the socket. The trigger file is removed either way.
int startListener(pid_t pid, const std::string& socket_path, const std::string& trigger_name, int timeout_ms) {
  std::string trigger = procPath(pid, "cwd/") + trigger_name;
  int fd = ::open(trigger.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    trigger = procPath(pid, "root/tmp/") + trigger_name;
    fd = ::open(trigger.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  }
  if (fd < 0) return -1;
  ::close(fd);
  int connected = -1;
  if (::kill(pid, SIGQUIT) == 0) {
    const int64_t deadline = monotonicMs() + timeout_ms;
    while ((connected = connectTo(socket_path)) < 0 && monotonicMs() < deadline) sleepMs(10);
  }
  ::unlink(trigger.c_str());
  return connected;
}

bool sendAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Reads until the JVM closes the connection; false on timeout.
bool readReply(int fd, int timeout_ms, std::string& reply) {
  const int64_t deadline = monotonicMs() + timeout_ms;
  char buffer[4096];
  for (;;) {
    const int64_t left = deadline - monotonicMs();
    if (left <= 0) return false;
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(left));
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) return false;
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return true;
    reply.append(buffer, static_cast<size_t>(got));
  }
}

// The number at the start of `line`, after an optional "return code: ".
bool parseCode(std::string line, int& code) {
  constexpr const char* kPrefix = "return code: ";
  if (line.rfind(kPrefix, 0) == 0) line = line.substr(std::strlen(kPrefix));
  char* end = nullptr;
  const long value = std::strtol(line.c_str(), &end, 10);
  if (end == line.c_str()) return false;
  code = static_cast<int>(value);
  return true;
}

}  // namespace

pid_t namespacePid(pid_t pid) {
  const std::string nspid = statusField(readSmallFile(procPath(pid, "status")), "NSpid");
  const size_t last = nspid.find_last_not_of(" \t");
  if (last == std::string::npos) return pid;
  const size_t start = nspid.find_last_of(" \t", last);
  const long value = std::strtol(nspid.c_str() + (start == std::string::npos ? 0 : start + 1), nullptr, 10);
  return value > 0 ? static_cast<pid_t>(value) : pid;
}

std::string perfDataPath(pid_t pid) {
  // /tmp/hsperfdata_<user>/<pid>, the user's name as the JVM's system knows it.
  const std::string tmp = procPath(pid, "root/tmp");
  const std::string name = std::to_string(namespacePid(pid));
  DIR* dir = ::opendir(tmp.c_str());
  if (!dir) return {};
  std::string found;
  while (dirent* entry = ::readdir(dir)) {
    if (std::strncmp(entry->d_name, "hsperfdata_", 11) != 0) continue;
    const std::string candidate = tmp + "/" + entry->d_name + "/" + name;
    if (::access(candidate.c_str(), R_OK) == 0) {
      found = candidate;
      break;
    }
  }
  ::closedir(dir);
  return found;
}

AttachResult checkAttachable(pid_t pid) {
  const std::string status = readSmallFile(procPath(pid, "status"));
  if (pid <= 0 || status.empty()) return failure(AttachError::NoSuchProcess, "no process with pid " + std::to_string(pid));
  // Uid: real, effective, saved, filesystem. HotSpot compares the peer with its effective uid.
  unsigned real = 0, effective = 0;
  if (std::sscanf(statusField(status, "Uid").c_str(), "%u %u", &real, &effective) != 2)
    return failure(AttachError::NoSuchProcess, "no process with pid " + std::to_string(pid));
  const std::string command = readSmallFile(procPath(pid, "comm"));
  const std::string shown = command.substr(0, command.find('\n'));
  if (::geteuid() != 0 && ::geteuid() != effective) {
    return failure(AttachError::OtherUser, "process " + std::to_string(pid) + " (" + shown + ") runs as user " +
                                               userName(effective) + ": only that user or root can attach to it");
  }
  if (readSmallFile(procPath(pid, "maps")).find("/libjvm.so") == std::string::npos)
    return failure(AttachError::NotAJvm, "process " + std::to_string(pid) + " (" + shown + ") is not a JVM (no libjvm.so)");
  // "sun.rt.jvmCapabilities" starts with '1' when the attach mechanism is on. Without
  // PerfData, the command line is the only hint.
  const std::string perf = perfDataPath(pid);
  std::string capabilities;
  const bool disabled = !perf.empty() && perfDataString(perf, "sun.rt.jvmCapabilities", capabilities)
                            ? capabilities.empty() || capabilities[0] != '1'
                            : readSmallFile(procPath(pid, "cmdline")).find("-XX:+DisableAttachMechanism") != std::string::npos;
  if (disabled) {
    return failure(AttachError::AttachDisabled, "JVM " + std::to_string(pid) +
                                                    " does not allow attaching (-XX:+DisableAttachMechanism)");
  }
  return {};
}

AttachResult attachCommand(pid_t pid, const std::string& name, const std::vector<std::string>& args, int timeout_ms) {
  AttachResult checked = checkAttachable(pid);
  if (checked.error != AttachError::None) return checked;
  const std::string ns_pid = std::to_string(namespacePid(pid));
  const std::string socket_path = procPath(pid, "root/tmp/.java_pid") + ns_pid;
  int fd = connectTo(socket_path);
  if (fd < 0) fd = startListener(pid, socket_path, ".attach_pid" + ns_pid, timeout_ms);
  if (fd < 0) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return failure(AttachError::NoSuchProcess, "JVM " + std::to_string(pid) + " exited");
    return failure(AttachError::Timeout, "JVM " + std::to_string(pid) + " did not open its attach socket within " +
                                             std::to_string(timeout_ms) + " ms (is it stopped or hung?)");
  }
  // Protocol 1: the command and always three arguments, each NUL-terminated.
  std::string request("1", 2);
  request += name;
  request.push_back('\0');
  for (size_t i = 0; i < 3; ++i) {
    if (i < args.size()) request += args[i];
    request.push_back('\0');
  }
  AttachResult result;
  const bool sent = sendAll(fd, request);
  const bool replied = sent && readReply(fd, timeout_ms, result.reply);
  ::close(fd);
  if (!replied) {
    return failure(AttachError::Timeout, "JVM " + std::to_string(pid) + " did not answer the " + name +
                                             " command within " + std::to_string(timeout_ms) + " ms");
  }
  const size_t first_end = result.reply.find('\n');
  int status = -1;
  if (!parseCode(result.reply.substr(0, first_end), status) || status != 0) {
    std::string detail = first_end == std::string::npos ? std::string() : result.reply.substr(first_end + 1);
    while (!detail.empty() && detail.back() == '\n') detail.pop_back();
    return failure(AttachError::Failed, "JVM " + std::to_string(pid) + " refused the " + name + " command" +
                                            (detail.empty() ? "" : ": " + detail));
  }
  result.reply.erase(0, first_end == std::string::npos ? result.reply.size() : first_end + 1);
  return result;
}

bool visibleToProcess(pid_t pid, const std::string& path) {
  struct stat ours {};
  struct stat theirs {};
  if (::stat(procPath(pid, "root").c_str(), &theirs) != 0 || ::stat("/", &ours) != 0) return true;  // cannot tell
  // The same root: the path means the same file. Another (a container): it must exist there.
  if (ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino) return true;
  return ::access((procPath(pid, "root") + path).c_str(), R_OK) == 0;
}

AttachResult loadAgent(pid_t pid, const std::string& agent_path, const std::string& options, int timeout_ms) {
  AttachResult result = attachCommand(pid, "load", {agent_path, "true", options}, timeout_ms);
  if (result.error != AttachError::None) return result;
  if (!parseCode(result.reply, result.agent_code)) {
    return failure(AttachError::Failed, "JVM " + std::to_string(pid) + " gave no agent return code");
  }
  if (result.agent_code != 0) {
    result.error = AttachError::Failed;
    result.message = "the agent in JVM " + std::to_string(pid) + " refused (code " +
                     std::to_string(result.agent_code) + "; the JVM's stderr says why)";
  }
  return result;
}

}  // namespace stackscope::native

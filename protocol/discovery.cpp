#include "protocol/discovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace stackscope::protocol {

std::string addressFilePath(const std::string& directory, long pid) {
  return directory + "/stackscope-" + std::to_string(pid) + ".address";
}
std::string tokenFilePath(const std::string& directory, long pid) {
  return directory + "/stackscope-" + std::to_string(pid) + ".token";
}

namespace {

// A new file holding `text`, created where no other file is (O_EXCL: no symbolic link or
// another user's file is ever written through).
bool writeNewFile(const std::string& path, const std::string& text, mode_t mode, std::string& error) {
  unlink(path.c_str());  // a stale file of an earlier process with this pid
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  fchmod(fd, mode);  // whatever the umask made of it
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (!ok) error = "cannot write " + path + ": " + std::strerror(errno);
  close(fd);
  if (!ok) unlink(path.c_str());
  return ok;
}

std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The pid the process has in its innermost pid namespace (the last NSpid field), or `pid`.
long pidInItsNamespace(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("NSpid:")) continue;
    std::istringstream fields(line.substr(6));
    long inner = pid;
    for (long value; fields >> value;) inner = value;
    return inner;
  }
  return pid;
}

// When the process started, in seconds since the epoch (its start in clock ticks after boot,
// /proc/PID/stat's 22nd field, plus the boot time); 0 when unknown.
long long processStartEpoch(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const size_t comm_end = text.rfind(')');  // the name may hold spaces and parentheses
  if (comm_end == std::string::npos) return 0;
  std::istringstream fields(text.substr(comm_end + 2));
  std::string field;
  unsigned long long start_ticks = 0;
  for (int n = 3; n <= 22 && fields >> field; ++n)
    if (n == 22) start_ticks = std::strtoull(field.c_str(), nullptr, 10);
  std::ifstream machine("/proc/stat");
  long long boot = 0;
  for (std::string line; std::getline(machine, line);)
    if (line.rfind("btime ", 0) == 0) boot = std::atoll(line.c_str() + 6);
  const long ticks = sysconf(_SC_CLK_TCK);
  return boot > 0 && ticks > 0 && start_ticks > 0 ? boot + static_cast<long long>(start_ticks / ticks) : 0;
}

// Control files older than the process were left by an earlier process of the same pid (one
// killed before it could remove them): the agent writes them after its JVM started.
bool leftByAnEarlierProcess(const std::string& path, long pid) {
  struct stat file {};
  const long long started = processStartEpoch(pid);
  return started > 0 && ::stat(path.c_str(), &file) == 0 && file.st_mtime + 2 < started;
}

}  // namespace

bool writeControlFiles(const std::string& directory, long pid, const std::string& address, const std::string& token,
                       std::string& error) {
  // The token first: a front-end that finds the address finds the token too.
  if (!writeNewFile(tokenFilePath(directory, pid), token + "\n", 0600, error)) return false;
  if (writeNewFile(addressFilePath(directory, pid), address + "\n", 0644, error)) return true;
  unlink(tokenFilePath(directory, pid).c_str());
  return false;
}

void removeControlFiles(const std::string& directory, long pid) {
  unlink(addressFilePath(directory, pid).c_str());
  unlink(tokenFilePath(directory, pid).c_str());
}

bool locateAgent(long pid, AgentLocation& out, std::string& error) {
  const std::string proc = "/proc/" + std::to_string(pid);
  if (access(proc.c_str(), F_OK) != 0) {
    error = "no process " + std::to_string(pid);
    return false;
  }
  const long inner = pidInItsNamespace(pid);
  // Through the process's own root first (a container's /tmp); then ours, when its root is
  // not readable to us but the JVM shares our /tmp.
  for (const std::string& directory : {proc + "/root" + kControlDirectory, std::string(kControlDirectory)}) {
    const long named = directory == kControlDirectory ? pid : inner;
    const std::string address = firstLine(addressFilePath(directory, named));
    if (address.empty() || leftByAnEarlierProcess(addressFilePath(directory, named), pid)) continue;
    const std::string token_path = tokenFilePath(directory, named);
    const std::string token = firstLine(token_path);
    if (token.empty()) {
      error = "cannot read " + token_path + " (the control token is readable only by the JVM's user)";
      return false;
    }
    out = {address, token};
    return true;
  }
  error = "process " + std::to_string(pid) + " has no stackscope control server (start the agent with control=...)";
  return false;
}

}  // namespace stackscope::protocol

// How a front-end finds a JVM's control server by its PID: the agent writes two files into
// the JVM's temporary directory, /tmp (HotSpot's own attach files live there too):
//   stackscope-PID.address  the address in use ("127.0.0.1:PORT" or "unix:PATH"), mode 0644
//   stackscope-PID.token    the secret of every connection's hello, mode 0600 (the JVM's user only)
// where PID is the JVM's pid as the JVM sees it. A JVM in a container has another pid in its
// namespace and another /tmp: the front-end reads both through /proc/PID (NSpid, root/).
#pragma once

#include <string>

namespace stackscope::protocol {

inline constexpr const char* kControlDirectory = "/tmp";

std::string addressFilePath(const std::string& directory, long pid);
std::string tokenFilePath(const std::string& directory, long pid);

// The agent's side: replaces stale files of an earlier process with this pid; never follows
// a symbolic link. False with `error` set when either file cannot be written.
bool writeControlFiles(const std::string& directory, long pid, const std::string& address, const std::string& token,
                       std::string& error);
void removeControlFiles(const std::string& directory, long pid);

struct AgentLocation {
  std::string address;
  std::string token;
};
// The front-end's side: the control files of the JVM `pid` (a pid of this machine's view),
// looked for through /proc/PID/root with the pid the JVM sees. `error` says what is missing.
bool locateAgent(long pid, AgentLocation& out, std::string& error);

}  // namespace stackscope::protocol

// HotSpot's dynamic attach, from the outside: how a tool gets a running JVM to load an agent
// without any helper of the JDK. The protocol (HotSpot's attachListener_linux.cpp):
//   1. the JVM listens on the Unix socket /tmp/.java_pid<PID> once its attach listener runs;
//   2. if the socket is not there, the tool creates the file .attach_pid<PID> in the JVM's
//      working directory (or /tmp) and sends SIGQUIT: the JVM, seeing the file, starts its
//      listener instead of printing a thread dump;
//   3. the tool connects (the JVM checks that the peer runs as its own user, or root) and
//      sends "1\0load\0<agent path>\0true\0<options>\0" (protocol 1, the load command, an
//      absolute path);
//   4. the reply is the command's status ("0" done) on its first line, then its output: for
//      load, the agent's Agent_OnAttach return code ("return code: N" on JDK 17 and 25).
// <PID> is the pid the JVM sees: in a container, the last NSpid of /proc/PID/status, and its
// /tmp is /proc/PID/root/tmp. The agent's path must exist in the JVM's file system too.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace stackscope::native {

enum class AttachError {
  None,
  NoSuchProcess,
  NotAJvm,
  OtherUser,       // the JVM runs as another user: only that user (or root) may attach
  AttachDisabled,  // -XX:+DisableAttachMechanism
  Timeout,         // no attach listener came up, or no reply came, in time
  Failed,          // the JVM answered with an error (the agent could not load, or refused)
};

struct AttachResult {
  AttachError error = AttachError::None;
  std::string message;  // what went wrong, one line, when error != None
  int agent_code = 0;   // Agent_OnAttach's return code, when the load command ran
  std::string reply;    // the JVM's whole reply
};

// Sends attach command `name` (load, threaddump, properties...) with at most three arguments
// to JVM `pid`, starting its listener if needed; waits at most timeout_ms for the listener
// and again for the reply. On success `reply` holds the output after the status line.
AttachResult attachCommand(pid_t pid, const std::string& name, const std::vector<std::string>& args, int timeout_ms);

// Asks JVM `pid` to load the agent at `agent_path` with `options`, waiting at most timeout_ms
// for the listener and again for the reply. agent_code != 0 is reported as Failed.
AttachResult loadAgent(pid_t pid, const std::string& agent_path, const std::string& options, int timeout_ms);

// Whether `path` names a file in the file system JVM `pid` sees (its root may be a
// container's). True when that cannot be told.
bool visibleToProcess(pid_t pid, const std::string& path);

// The checks loadAgent makes before it signals anything: the process exists, is a JVM, runs
// as this user (or this is root) and has attach enabled. None when all hold.
AttachResult checkAttachable(pid_t pid);

// The pid the process sees itself as (its innermost namespace's), or `pid` when unknown.
pid_t namespacePid(pid_t pid);

// The JVM's PerfData (hsperfdata) file through /proc/PID/root, or "" when it has none
// (-XX:-UsePerfData) or it cannot be found.
std::string perfDataPath(pid_t pid);

}  // namespace stackscope::native

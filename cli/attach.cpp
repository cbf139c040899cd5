// `stackscope attach PID [options] [--duration D] [-o FILE]`: loads the agent into a running
// HotSpot JVM through the JVM's own attach mechanism (native/jvm_attach.h), records for the
// duration or until Ctrl-C, then tells the agent to detach: the file is finished, the agent's
// threads and events are gone and the JVM runs on. The recording is one `record` would make.
//
// The channel to the agent is the attach mechanism itself: a second `load` of the same
// library with the option "detach" (agent/agent.cpp). `stackscope list` shows the JVMs.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "agent/attach_codes.h"
#include "cli/agent_args.h"
#include "cli/command.h"
#include "native/jvm_attach.h"

namespace stackscope::cli {

namespace {

namespace fs = std::filesystem;

struct AttachArgs {
  AgentArgs agent;
  std::string pid;
  std::string output;
  std::string duration = "30s";
  std::string timeout = "10s";
};

pid_t parsePid(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long pid = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || pid <= 0 || pid > 0x3fffffff)
    throw UserError("'" + text + "' is not a process id");
  return static_cast<pid_t>(pid);
}

std::string defaultOutput(pid_t pid) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "stackscope-" + std::to_string(pid) + "-" + stamp + ".ssr";
}

// The attach library's errors are the user's to fix (wrong pid, another user's JVM, attach
// disabled, a JVM that does not answer): exit 1 with its message.
native::AttachResult sendToAgent(pid_t pid, const fs::path& agent, const std::string& options, int timeout_ms) {
  native::AttachResult result = native::loadAgent(pid, agent.string(), options, timeout_ms);
  if (result.error == native::AttachError::Failed && result.agent_code != 0)
    result.message = "JVM " + std::to_string(pid) + ": " + agent::attachCodeMeaning(result.agent_code);
  return result;
}

// Waits until the duration passes, SIGINT or SIGTERM comes, or the JVM exits. True when the
// JVM still runs (and the agent must be told to detach).
bool waitForEnd(pid_t pid, int64_t duration_ns) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const int64_t deadline = start.tv_sec * 1'000'000'000LL + start.tv_nsec + duration_ns;
  for (;;) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t left = deadline - (now.tv_sec * 1'000'000'000LL + now.tv_nsec);
    if (left <= 0) return true;
    const int64_t step = std::min<int64_t>(left, 100'000'000);  // looks at the JVM every 100 ms
    const timespec wait{step / 1'000'000'000, step % 1'000'000'000};
    if (sigtimedwait(&stop_signals, nullptr, &wait) > 0) return true;
  }
}

int runAttach(const AttachArgs& args) {
  const pid_t pid = parsePid(args.pid);
  const int64_t duration_ns = parseDurationOption(args.duration, "--duration");
  const int timeout_ms = static_cast<int>(std::min<int64_t>(parseDurationOption(args.timeout, "--timeout") / 1'000'000,
                                                            600'000));
  const std::string shown = args.output.empty() ? defaultOutput(pid) : args.output;
  const fs::path output = fs::absolute(shown).lexically_normal();
  checkOptionValue(output.string(), "the output path");
  const fs::path agent = findAgent();
  const std::string options = agentOptions(args.agent, output, "");
  if (::kill(pid, 0) == 0 && !native::visibleToProcess(pid, agent.string())) {
    throw UserError("the agent " + agent.string() + " is not in the file system of JVM " + std::to_string(pid) +
                    " (a container?): run stackscope attach inside it");
  }
  const native::AttachResult started = sendToAgent(pid, agent, options, timeout_ms);
  if (started.error != native::AttachError::None) throw UserError(started.message);
  std::cerr << "stackscope: recording JVM " << pid << " into " << shown << " for " << args.duration
            << " (Ctrl-C stops sooner)\n";
  if (waitForEnd(pid, duration_ns)) {
    const native::AttachResult detached = sendToAgent(pid, agent, "detach", timeout_ms);
    if (detached.error != native::AttachError::None) {
      std::cerr << "stackscope: error: cannot detach: " << detached.message << '\n';
      return 2;
    }
  } else {
    std::cerr << "stackscope: JVM " << pid << " exited; its agent finished the recording\n";
  }
  reportRecording(shown, output);
  return 0;
}

}  // namespace

Command addAttachCommand(CLI::App& parent) {
  auto args = std::make_shared<AttachArgs>();
  CLI::App* cmd = parent.add_subcommand("attach", "Profile a running JVM for a while, then detach from it");
  cmd->footer(
      "Example: stackscope attach 4242 -e cpu -i 10ms --duration 30s -o run.ssr\n"
      "Loads the agent through HotSpot's attach mechanism (as the JVM's user, or root), records, and at the\n"
      "end of the duration or on Ctrl-C finishes the file and detaches; the JVM runs on. Attaching again\n"
      "later reuses the agent. --exceptions thrown cannot run after attach (the JVM grants it only at\n"
      "start); other traces can. The JVM writes the file itself: its user must be able to write there.");
  cmd->add_option("pid", args->pid, "The JVM's process id (stackscope list shows them)")->required();
  addAgentArgs(cmd, args->agent);
  cmd->add_option("-o,--output", args->output, "Recording file (default stackscope-PID-YYYYmmdd-HHMMSS.ssr)");
  cmd->add_option("-d,--duration", args->duration, "How long to record (default 30s; Ctrl-C stops sooner)");
  cmd->add_option("--timeout", args->timeout, "How long to wait for the JVM to answer (default 10s)");
  return {cmd, [args] { return runAttach(*args); }};
}

}  // namespace stackscope::cli

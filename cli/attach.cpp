// `stackscope attach PID [options] [--duration D] [-o FILE]`: loads the agent into a running
// HotSpot JVM through the JVM's own attach mechanism (native/jvm_attach.h) with only its
// control server (control=127.0.0.1:0), then drives it over the control protocol as a user
// of `stackscope connect` would (docs/protocol.md): start with the options, and after the
// duration or Ctrl-C stop and detach. It returns once the agent closed the connection, which
// it does when its threads are out of the JVM: the file is finished, the agent's threads and
// events are gone and the JVM runs on. The recording is one `record` would make.
//
// A JVM whose agent already listens (its control files, protocol/discovery.h) is driven
// through that server without a load; a server this command did not open is left running
// (stop only, no detach). A JVM whose agent records since its start, without a server, is
// refused (one recording at a time); the server the load opened is closed again, and that
// recording goes on (driven_jvm.h). `stackscope list` shows the JVMs.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/agent_args.h"
#include "cli/command.h"
#include "cli/driven_jvm.h"

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
  const std::string shown = args.output.empty() ? defaultRecordingName(pid) : args.output;
  const fs::path output = fs::absolute(shown).lexically_normal();
  checkOptionValue(output.string(), "the output path");
  const std::string options = agentOptions(args.agent, output, "");
  DrivenJvm jvm;
  connectOrLoadAgent(pid, timeout_ms, jvm);
  protocol::Json reply;
  std::string error;
  if (!jvm.client.request(protocol::Json{{"cmd", "start"}, {"options", options}}, reply, error, 30'000)) {
    const bool recording = reply.is_object() && reply.value("error", std::string()) == protocol::error::kUnavailable;
    if (jvm.opened_server && recording) {
      const std::string file = runningRecordingFile(jvm);
      const bool closed = closeServer(jvm, timeout_ms);
      throw UserError("JVM " + std::to_string(pid) + " already records into " + file +
                      " (its agent was loaded at its start; one recording at a time); the control server this attach "
                      "opened " + (closed ? "is closed again" : "did not close in time"));
    }
    // Ours and idle: leave the JVM as found. Someone else's: untouched.
    if (jvm.opened_server) detachAgent(jvm, timeout_ms);
    throw UserError("JVM " + std::to_string(pid) + ": " + error);
  }
  std::cerr << "stackscope: recording JVM " << pid << " into " << shown << " for " << args.duration
            << " (Ctrl-C stops sooner)\n";
  if (!waitForEnd(pid, duration_ns)) {
    std::cerr << "stackscope: JVM " << pid << " exited; its agent finished the recording\n";
  } else {
    askJvm(jvm, protocol::Json{{"cmd", "stop"}});
    if (jvm.opened_server) {
      if (!detachAgent(jvm, timeout_ms)) {
        std::cerr << "stackscope: error: JVM " << pid << ": the agent did not finish its detach within " << args.timeout
                  << '\n';
        return 2;
      }
    } else {
      std::cerr << "stackscope: the agent's control server was open before this attach: left open\n";
    }
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
      "end of the duration or on Ctrl-C finishes the file and detaches; the JVM runs on. The agent is driven\n"
      "over its control server (docs/protocol.md), opened on 127.0.0.1 for the attach: an agent whose server\n"
      "already listens is reused through it and left listening. Attaching again later reuses the agent. --exceptions thrown cannot run after attach (the JVM grants it only at\n"
      "start); other traces can. The JVM writes the file itself: its user must be able to write there.");
  cmd->add_option("pid", args->pid, "The JVM's process id (stackscope list shows them)")->required();
  addAgentArgs(cmd, args->agent);
  cmd->add_option("-o,--output", args->output, "Recording file (default stackscope-PID-YYYYmmdd-HHMMSS.ssr)");
  cmd->add_option("-d,--duration", args->duration, "How long to record (default 30s; Ctrl-C stops sooner)");
  cmd->add_option("--timeout", args->timeout, "How long to wait for the JVM to answer (default 10s)");
  return {cmd, [args] { return runAttach(*args); }};
}

}  // namespace stackscope::cli

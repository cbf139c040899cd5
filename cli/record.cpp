// `stackscope record [options] -- java ARGS…`: runs a Java program with the agent loaded,
// passes its exit code through, then says how many samples the recording holds.
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

#include "analysis/load.h"
#include "cli/command.h"
#include "cli/launch.h"
#include "format/reader.h"

namespace stackscope::cli {

namespace {

namespace fs = std::filesystem;

struct RecordArgs {
  std::string event = "cpu";
  std::string interval = "10ms";
  std::string status = "1s";
  std::string output;
  std::string filter;  // the agent's collection-time filter, "user:u1;application:shop*"
  std::vector<std::string> command;
};

// The agent ships next to the command: <prefix>/bin/stackscope and <prefix>/lib/libstackscope.so.
fs::path findAgent() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find the stackscope executable: " + error.message());
  const fs::path agent = (self.parent_path() / ".." / "lib" / "libstackscope.so").lexically_normal();
  if (::access(agent.c_str(), R_OK) != 0)
    throw UserError("the agent is missing: expected " + agent.string() + " (build it, or install stackscope with its lib/ directory)");
  return agent;
}

std::string defaultOutput() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char name[64];
  std::strftime(name, sizeof name, "stackscope-%Y%m%d-%H%M%S.ssr", &tm);
  return name;
}

// The agent's options are "key=value,key=value": a ',' inside a path would split it.
void checkOptionValue(const std::string& value, const std::string& what) {
  if (value.find(',') != std::string::npos)
    throw UserError(what + " '" + value + "' contains ',', which the agent options cannot carry");
}

std::string agentArgument(const RecordArgs& args, const fs::path& agent, const fs::path& output) {
  checkOptionValue(agent.string(), "the agent path");
  std::string argument = "-agentpath:" + agent.string() + "=event=" + args.event + ",interval=" + args.interval +
                         ",status=" + args.status + ",file=" + output.string();
  if (!args.filter.empty()) {
    checkOptionValue(args.filter, "the filter");
    argument += ",filter=" + args.filter;
  }
  return argument;
}

// A `java` launcher takes the agent as its first option. Anything else (a wrapper script,
// a build tool) is reached through JAVA_TOOL_OPTIONS, which every JVM it starts reads.
std::vector<std::string> withAgent(std::vector<std::string> command, const std::string& agent_arg) {
  if (fs::path(command.front()).filename() == "java") {
    command.insert(command.begin() + 1, agent_arg);
    return command;
  }
  // JAVA_TOOL_OPTIONS is split at white space.
  if (agent_arg.find_first_of(" \t\n") != std::string::npos)
    throw UserError("the agent or output path contains white space, which JAVA_TOOL_OPTIONS cannot carry; run java directly or choose another path");
  const char* existing = std::getenv("JAVA_TOOL_OPTIONS");
  const std::string value = existing && *existing ? std::string(existing) + " " + agent_arg : agent_arg;
  ::setenv("JAVA_TOOL_OPTIONS", value.c_str(), 1);
  return command;
}

void checkWritable(const fs::path& output) {
  const fs::path dir = output.parent_path();
  if (::access(dir.c_str(), W_OK) != 0)
    throw UserError("cannot write the recording to " + output.string() + ": directory " + dir.string() +
                    " is missing or not writable");
}

void reportRecording(const std::string& shown, const fs::path& output) {
  if (!fs::exists(output)) {
    std::cerr << "stackscope: warning: no recording was written to " << shown
              << " (did the JVM start? the agent prints why it did not run)\n";
    return;
  }
  try {
    const analysis::Recording recording = analysis::loadRecording(output.string());
    uint64_t samples = 0;
    for (const analysis::Sample& sample : recording.samples) samples += sample.weight;
    std::cerr << "stackscope: recorded " << samples << " samples (" << recording.lostTotal() << " lost) in " << shown
              << '\n';
    for (const std::string& warning : recording.warnings) std::cerr << "stackscope: warning: " << warning << '\n';
  } catch (const format::FormatError& e) {
    std::cerr << "stackscope: warning: " << e.what() << '\n';
  }
}

int runRecord(const RecordArgs& args) {
  parseDurationOption(args.interval, "--interval");  // validated here, passed on as written
  parseDurationOption(args.status, "--status");
  const std::string shown = args.output.empty() ? defaultOutput() : args.output;
  const fs::path output = fs::absolute(shown).lexically_normal();
  checkOptionValue(output.string(), "the output path");
  checkWritable(output);
  const std::string agent_arg = agentArgument(args, findAgent(), output);
  const int code = runAndWait(withAgent(args.command, agent_arg));
  reportRecording(shown, output);
  return code;
}

}  // namespace

Command addRecordCommand(CLI::App& parent) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* cmd = parent.add_subcommand("record", "Run a Java program with the profiler and record its samples");
  cmd->footer(
      "Example: stackscope record -e wall -o run.ssr -- java -cp app.jar Main\n"
      "The agent is added as the first option of a `java` command, or through JAVA_TOOL_OPTIONS for any\n"
      "other program (a script that starts java). The program's exit code is stackscope's.");
  cmd->add_option("-e,--event", args->event, "cpu (default): threads using CPU, in proportion to CPU time; wall: every thread, with its state")
      ->check(CLI::IsMember({"cpu", "wall"}));
  cmd->add_option("-i,--interval", args->interval, "Sampling interval (default 10ms)");
  cmd->add_option("--status", args->status, "Status report interval (default 1s)");
  cmd->add_option("-o,--output", args->output, "Recording file (default stackscope-YYYYmmdd-HHMMSS.ssr)");
  cmd->add_option("--filter", args->filter,
                  "Record only threads whose annotation matches, e.g. 'user:u1;user:u2;application:shop*' "
                  "(one key's values are alternatives, all keys must hold, globs allowed)");
  cmd->add_option("command", args->command, "The program to run and its arguments, after --")->required();
  return {cmd, [args] { return runRecord(*args); }};
}

}  // namespace stackscope::cli

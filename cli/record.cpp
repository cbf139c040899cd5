// `stackscope record [options] -- java ARGS…`: runs a Java program with the agent loaded,
// passes its exit code through, then lists the recordings written with their sample counts.
//
// Every JVM the program starts gets its own file: the first one the name given to -o, the
// others that name with their pid inserted (agent options overwrite=no, children=yes; see
// agent/file_name.h). With --no-children the JVM started by record keeps the agent from the
// JVMs it starts. The options are checked by the agent's own parser before anything runs.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "agent/file_name.h"
#include "agent/options.h"
#include "analysis/recording_set.h"
#include "cli/agent_args.h"
#include "cli/command.h"
#include "cli/launch.h"
#include "format/part_names.h"
#include "format/reader.h"

namespace stackscope::cli {

namespace {

namespace fs = std::filesystem;

struct RecordArgs {
  AgentArgs agent;
  std::string output;
  std::string control;  // the agent's control=, "" = no control server (record only: not after an attach yet)
  bool no_children = false;
  std::vector<std::string> command;
  std::vector<std::string> unknown;  // options CLI11 did not know (record allows extras to explain them)
};

std::string defaultOutput() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char name[64];
  std::strftime(name, sizeof name, "stackscope-%Y%m%d-%H%M%S.ssr", &tm);
  return name;
}

std::string agentArgument(const fs::path& agent, const std::string& options) {
  checkOptionValue(agent.string(), "the agent path");
  return "-agentpath:" + agent.string() + "=" + options;
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

// CLI11 takes `record java Main` as it takes `record -- java Main`, so whether the separator
// was typed is read from the command line itself.
bool separatorGiven() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  bool after_record = false;
  while (std::getline(in, arg, '\0')) {
    if (after_record && arg == "--") return true;
    if (arg == "record") after_record = true;
  }
  return false;
}

void checkCommandLine(const RecordArgs& args) {
  if (!separatorGiven())
    throw UserError("put the program to profile after '--', e.g. stackscope record -o run.ssr -- java -cp app.jar Main");
  if (!args.unknown.empty()) throw UserError("record: unknown option '" + args.unknown.front() + "' (see --help)");
}

bool isPattern(const std::string& path) { return path.find('%') != std::string::npos; }

// The file -o names is about to be replaced, and the agent, told overwrite=no, takes it only
// when it is empty: remove an earlier recording now, so that only a JVM of this run is first.
// A file another process is writing stays, and stops record. The rotated parts of an earlier
// recording (run-1.ssr, …) go too, even when maxfiles= deleted run.ssr itself: `report run.ssr`
// would otherwise find them beside the new one.
void clearOutput(const fs::path& output) {
  if (const int fd = ::open(output.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    if (!busy) ::unlink(output.c_str());
    ::close(fd);
    if (busy) throw UserError("'" + output.string() + "' is being written by another process; choose another -o");
  }
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(output.parent_path(), error))
    if (format::partNumber(output.filename().string(), entry.path().filename().string())) fs::remove(entry.path(), error);
}

// The recordings this run wrote: names the agent can give for `output`, written since
// `started` (less a second: file times are coarser than the clock), the -o file first.
std::vector<fs::path> recordingsWritten(const fs::path& output, fs::file_time_type started) {
  std::vector<fs::path> found;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(output.parent_path(), error)) {
    std::error_code stat_error;
    if (!entry.is_regular_file(stat_error) || entry.last_write_time(stat_error) < started - std::chrono::seconds(1))
      continue;
    if (agent::isFileNameOf(output.string(), entry.path().string())) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end(), [&](const fs::path& a, const fs::path& b) {
    return std::make_pair(a != output, a.string()) < std::make_pair(b != output, b.string());
  });
  return found;
}

// Names as the user gave -o: relative stays relative.
std::string shownName(const std::string& shown_output, const fs::path& output, const fs::path& path) {
  if (path == output) return shown_output;
  return (fs::path(shown_output).parent_path() / path.filename()).string();
}

void reportRecordings(const RecordArgs& args, const std::string& shown, const fs::path& output,
                      fs::file_time_type started) {
  const std::vector<fs::path> written = recordingsWritten(output, started);
  if (written.empty()) {
    std::cerr << "stackscope: warning: nothing was recorded: '" << args.command.front()
              << "' started no JVM that ran the agent (record profiles Java programs)\n";
    return;
  }
  if (written.size() > 1) std::cerr << "stackscope: " << written.size() << " JVMs recorded, one file each:\n";
  for (const fs::path& path : written) reportRecording(shownName(shown, output, path), path);
}

int runRecord(const RecordArgs& args) {
  checkCommandLine(args);
  const std::string shown = args.output.empty() ? defaultOutput() : args.output;
  const fs::path output = fs::absolute(shown).lexically_normal();
  checkOptionValue(output.string(), "the output path");
  checkWritable(output);
  std::string extra = std::string("overwrite=no,children=") + (args.no_children ? "no" : "yes");
  if (!args.control.empty()) {
    checkOptionValue(args.control, "--control");
    extra += ",control=" + args.control;
  }
  const std::string agent_arg = agentArgument(findAgent(), agentOptions(args.agent, output, extra));
  if (!isPattern(output.string())) clearOutput(output);
  const fs::file_time_type started = fs::file_time_type::clock::now();
  const int code = runAndWait(withAgent(args.command, agent_arg));
  reportRecordings(args, shown, output, started);
  return code;
}

}  // namespace

void reportRecording(const std::string& shown, const std::filesystem::path& path) {
  try {
    const analysis::Recording recording = analysis::loadRecordingSet(path.string());
    uint64_t samples = 0;
    // Samples by their weight; the traces' events (allocations, collections, …) are counted
    // apart, each kind by its events, so that a recording of traces alone does not read empty.
    std::array<uint64_t, analysis::kEventKindCount> trace_events{};
    for (const analysis::Event& event : recording.events) {
      if (event.kind == analysis::EventKind::Cpu || event.kind == analysis::EventKind::Wall) {
        samples += event.weight;
      } else {
        ++trace_events[static_cast<size_t>(event.kind)];
      }
    }
    std::string traces;
    for (size_t kind = 0; kind < trace_events.size(); ++kind) {
      if (trace_events[kind] == 0) continue;
      traces += (traces.empty() ? " and " : ", ") + std::to_string(trace_events[kind]) + ' ' +
                analysis::eventKindName(static_cast<analysis::EventKind>(kind));
    }
    if (!traces.empty()) traces += " events";
    std::cerr << "stackscope: recorded " << samples << " samples (" << recording.lostTotal() << " lost)" << traces
              << " in " << shown;
    if (const size_t parts = analysis::recordingParts(path.string()).size(); parts > 1)
      std::cerr << " and its rotated parts (" << parts << " files)";
    if (recording.has_info) std::cerr << " (pid " << recording.info.pid << ')';
    std::cerr << '\n';
    for (const std::string& warning : recording.warnings) std::cerr << "stackscope: warning: " << warning << '\n';
  } catch (const format::FormatError& e) {
    std::cerr << "stackscope: warning: " << e.what() << '\n';
  }
}

Command addRecordCommand(CLI::App& parent) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* cmd = parent.add_subcommand("record", "Run a Java program with the profiler and record its samples");
  cmd->footer(
      "Example: stackscope record -e wall -o run.ssr -- java -cp app.jar Main\n"
      "The agent is added as the first option of a `java` command, or through JAVA_TOOL_OPTIONS for any\n"
      "other program (a script that starts java). Every JVM started gets its own file, and record lists\n"
      "them when the program ends. The program's exit code is stackscope's.");
  addAgentArgs(cmd, args->agent);
  cmd->add_option("-o,--output", args->output,
                  "Recording file (default stackscope-YYYYmmdd-HHMMSS.ssr); %p and %t in it are the pid and start "
                  "time of each JVM");
  cmd->add_flag("--no-children", args->no_children,
                "Profile only the JVM record starts, not the JVMs it starts in turn (by default each gets its own "
                "file: the -o name with its pid inserted, run.4242.ssr)");
  cmd->add_option("--control", args->control,
                  "Listen for `stackscope connect` (status, mark, dump, stream, stop, ...): PORT on 127.0.0.1 "
                  "(0: a free one), IPv4:PORT or unix:PATH");
  cmd->add_option("command", args->command, "The program to run and its arguments, after --")->required();
  // Options after the program belong to it; before `--`, an unknown one is reported by
  // checkCommandLine, which can also say that `--` is missing.
  cmd->allow_extras();
  return {cmd, [args, cmd] {
            for (const std::string& arg : cmd->remaining()) {
              if (arg == "--") break;  // CLI11 keeps the separator among the extras
              args->unknown.push_back(arg);
            }
            return runRecord(*args);
          }};
}

}  // namespace stackscope::cli

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
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "agent/file_name.h"
#include "agent/options.h"
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
  std::string alloc_interval;  // the alloc trace's alloc=, "512k"; "" = the agent's default
  std::string classes;         // the alloc trace's classes=, "com.shop.*;byte[]"
  std::string lock_threshold;  // the lock trace's, agent option lock=; empty: the agent's default
  std::string exceptions;      // the exception trace's source, agent option exception=; empty: created
  std::string metrics;  // the agent's metrics= list, "" = its default
  std::string histo;    // the agent's histo=, "" = no class histogram
  std::string control;  // the agent's control=, "" = no control server
  bool no_children = false;
  bool no_native = false;
  std::vector<std::string> command;
  std::vector<std::string> unknown;  // options CLI11 did not know (record allows extras to explain them)
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

// The agent's option string for the options given to record.
std::string agentOptions(const RecordArgs& args, const fs::path& output) {
  // -e is one option of the agent's list: only names, or it would carry others.
  if (args.event.find_first_not_of("abcdefghijklmnopqrstuvwxyz,") != std::string::npos)
    throw UserError("--event '" + args.event + "': expected a comma list of names such as cpu,gc,exception");
  std::string options = "event=" + args.event + ",interval=" + args.interval + ",status=" + args.status +
                        ",file=" + output.string() + ",overwrite=no,children=" + (args.no_children ? "no" : "yes");
  if (args.no_native) options += ",native=no";
  if (!args.lock_threshold.empty()) {
    checkOptionValue(args.lock_threshold, "--lock-threshold");
    options += ",lock=" + args.lock_threshold;
  }
  if (!args.exceptions.empty()) {
    checkOptionValue(args.exceptions, "--exceptions");
    options += ",exception=" + args.exceptions;
  }
  if (!args.metrics.empty()) {
    if (args.metrics.find_first_not_of("abcdefghijklmnopqrstuvwxyz,") != std::string::npos)
      throw UserError("--metrics '" + args.metrics + "': expected a comma list of cpu and alloc, or none");
    options += ",metrics=" + args.metrics;
  }
  if (!args.histo.empty()) {
    checkOptionValue(args.histo, "--histo");
    options += ",histo=" + args.histo;
  }
  if (!args.control.empty()) {
    checkOptionValue(args.control, "--control");
    options += ",control=" + args.control;
  }
  if (!args.filter.empty()) {
    checkOptionValue(args.filter, "the filter");
    options += ",filter=" + args.filter;
  }
  if (!args.alloc_interval.empty()) {
    checkOptionValue(args.alloc_interval, "--alloc-interval");
    options += ",alloc=" + args.alloc_interval;
  }
  if (!args.classes.empty()) {
    checkOptionValue(args.classes, "--classes");
    options += ",classes=" + args.classes;
  }
  // The agent's own parser: a mistake fails here, with its message, before any JVM runs
  // unprofiled. Its messages start with "stackscope: ", which main adds again.
  const agent::ParseResult parsed = agent::parseOptions(options, ::getpid());
  if (!parsed.ok) {
    constexpr std::string_view kPrefix = "stackscope: ";
    const std::string_view message = parsed.error;
    throw UserError(std::string(message.substr(message.rfind(kPrefix, 0) == 0 ? kPrefix.size() : 0)));
  }
  return options;
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
// A file another process is writing stays, and stops record.
void clearOutput(const fs::path& output) {
  const int fd = ::open(output.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // nothing there (or nothing readable: the agent will say)
  const bool busy = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  if (!busy) ::unlink(output.c_str());
  ::close(fd);
  if (busy) throw UserError("'" + output.string() + "' is being written by another process; choose another -o");
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

void reportRecording(const std::string& shown, const fs::path& path) {
  try {
    const analysis::Recording recording = analysis::loadRecording(path.string());
    uint64_t samples = 0;
    // Samples only: the traces' events (collections, exceptions) are not samples.
    for (const analysis::Event& event : recording.events)
      if (event.kind == analysis::EventKind::Cpu || event.kind == analysis::EventKind::Wall) samples += event.weight;
    std::cerr << "stackscope: recorded " << samples << " samples (" << recording.lostTotal() << " lost) in " << shown;
    if (recording.has_info) std::cerr << " (pid " << recording.info.pid << ')';
    std::cerr << '\n';
    for (const std::string& warning : recording.warnings) std::cerr << "stackscope: warning: " << warning << '\n';
  } catch (const format::FormatError& e) {
    std::cerr << "stackscope: warning: " << e.what() << '\n';
  }
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
  const std::string agent_arg = agentArgument(findAgent(), agentOptions(args, output));
  if (!isPattern(output.string())) clearOutput(output);
  const fs::file_time_type started = fs::file_time_type::clock::now();
  const int code = runAndWait(withAgent(args.command, agent_arg));
  reportRecordings(args, shown, output, started);
  return code;
}

}  // namespace

Command addRecordCommand(CLI::App& parent) {
  auto args = std::make_shared<RecordArgs>();
  CLI::App* cmd = parent.add_subcommand("record", "Run a Java program with the profiler and record its samples");
  cmd->footer(
      "Example: stackscope record -e wall -o run.ssr -- java -cp app.jar Main\n"
      "The agent is added as the first option of a `java` command, or through JAVA_TOOL_OPTIONS for any\n"
      "other program (a script that starts java). Every JVM started gets its own file, and record lists\n"
      "them when the program ends. The program's exit code is stackscope's.");
  cmd->add_option("-e,--event", args->event,
                  "A comma list: at most one sampling mode, cpu (default: threads using CPU, in proportion to CPU "
                  "time) or wall (every thread, with its state), and any traces: gc (every collection: pause, "
                  "collector, cause), exception (every exception created: class, stack; see --exceptions), "
                  "alloc (a sampled allocation about every --alloc-interval bytes a thread allocates: stack, "
                  "class, size), live (alloc, and when each sampled object is freed: the live objects at the end), "
                  "lock (waits at least --lock-threshold long for monitors, Object.wait and java.util.concurrent "
                  "locks: class, stack, owner); traces alone record no samples");
  cmd->add_option("--lock-threshold", args->lock_threshold,
                  "The lock trace records waits at least this long (default 1ms; shorter ones cost only a clock read)");
  cmd->add_option("--exceptions", args->exceptions,
                  "exception: created (default: each exception where its stack trace is filled in, cheap) or "
                  "thrown (each throw, caught or not, exact counts; through JVMTI, which makes HotSpot deoptimize "
                  "throws: a program that throws much runs many times slower)");
  cmd->add_option("-i,--interval", args->interval, "Sampling interval (default 10ms)");
  cmd->add_option("--status", args->status, "Status report interval (default 1s)");
  cmd->add_option("-o,--output", args->output,
                  "Recording file (default stackscope-YYYYmmdd-HHMMSS.ssr); %p and %t in it are the pid and start "
                  "time of each JVM");
  cmd->add_option("--filter", args->filter,
                  "Record only threads whose annotation matches, e.g. 'user:u1;user:u2;application:shop*' "
                  "(one key's values are alternatives, all keys must hold, globs allowed)");
  cmd->add_option("--alloc-interval", args->alloc_interval,
                  "alloc and live: the mean bytes a thread allocates between two sampled objects, 1k to 1g "
                  "(default 512k; k and m suffixes)");
  cmd->add_option("--classes", args->classes,
                  "alloc and live: record only objects of these classes, globs as Java writes names, ';' "
                  "between them: 'com.shop.*;byte[]'");
  cmd->add_flag("--no-children", args->no_children,
                "Profile only the JVM record starts, not the JVMs it starts in turn (by default each gets its own "
                "file: the -o name with its pid inserted, run.4242.ssr)");
  cmd->add_flag("--no-native", args->no_native,
                "Java frames only: no native frames (JVM, JNI libraries, libc) and, in cpu mode, no samples of the "
                "JVM's own threads (GC, compilers: 'jvm:NAME')");
  cmd->add_option("--metrics", args->metrics,
                  "What each sample carries of its thread's use since its previous sample: a comma list of cpu "
                  "(its CPU time) and alloc (the bytes it allocated), or none (default none); reports count "
                  "them with --metric cpu-time and alloc-bytes");
  cmd->add_option("--histo", args->histo,
                  "Class histograms (objects in the heap per class: instances and shallow bytes): every D (10s), or "
                  "after every collection (gc) or every Nth (gc:N), and one at the end; each heap walk stops the JVM "
                  "(report --view histogram, histogram-growth)");
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

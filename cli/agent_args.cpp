#include "cli/agent_args.h"

#include <unistd.h>

#include <ctime>
#include <stdexcept>
#include <string_view>

#include "agent/options.h"
#include "cli/command.h"

namespace stackscope::cli {

namespace fs = std::filesystem;

void addAgentArgs(CLI::App* cmd, AgentArgs& args) {
  cmd->add_option("-e,--event", args.event,
                  "A comma list: at most one sampling mode, cpu (default: threads using CPU, in proportion to CPU "
                  "time) or wall (every thread, with its state), and any traces: gc (every collection: pause, "
                  "collector, cause), exception (every exception created: class, stack; see --exceptions), "
                  "alloc (a sampled allocation about every --alloc-interval bytes a thread allocates: stack, "
                  "class, size), live (alloc, and when each sampled object is freed: the live objects at the end), "
                  "lock (waits at least --lock-threshold long for monitors, Object.wait and java.util.concurrent "
                  "locks: class, stack, owner); traces alone record no samples");
  cmd->add_option("--lock-threshold", args.lock_threshold,
                  "The lock trace records waits at least this long (default 1ms; shorter ones cost only a clock read)");
  cmd->add_option("--exceptions", args.exceptions,
                  "exception: created (default: each exception where its stack trace is filled in, cheap) or "
                  "thrown (each throw, caught or not, exact counts; through JVMTI, which makes HotSpot deoptimize "
                  "throws: a program that throws much runs many times slower)");
  cmd->add_option("-i,--interval", args.interval, "Sampling interval (default 10ms)");
  cmd->add_option("--status", args.status, "Status report interval (default 1s)");
  cmd->add_option("--filter", args.filter,
                  "Record only threads whose annotation matches, e.g. 'user:u1;user:u2;application:shop*' "
                  "(one key's values are alternatives, all keys must hold, globs allowed)");
  cmd->add_option("--alloc-interval", args.alloc_interval,
                  "alloc and live: the mean bytes a thread allocates between two sampled objects, 1k to 1g "
                  "(default 512k; k and m suffixes)");
  cmd->add_option("--classes", args.classes,
                  "alloc and live: record only objects of these classes, globs as Java writes names, ';' "
                  "between them: 'com.shop.*;byte[]'");
  cmd->add_flag("--no-native", args.no_native,
                "Java frames only: no native frames (JVM, JNI libraries, libc) and, in cpu mode, no samples of the "
                "JVM's own threads (GC, compilers: 'jvm:NAME')");
  cmd->add_flag("--no-vthreads", args.no_vthreads,
                "JDK 21+: sample carriers as themselves, not as the virtual threads they run, and leave virtual "
                "threads' waits out of the lock trace: no callback of the agent at every mount and unmount");
  cmd->add_option("--metrics", args.metrics,
                  "What each sample carries of its thread's use since its previous sample: a comma list of cpu "
                  "(its CPU time) and alloc (the bytes it allocated), or none (default none); reports count "
                  "them with --metric cpu-time and alloc-bytes");
  cmd->add_option("--histo", args.histo,
                  "Class histograms (objects in the heap per class: instances and shallow bytes): every D (10s), or "
                  "after every collection (gc) or every Nth (gc:N), and one at the end; each heap walk stops the JVM "
                  "(report --view histogram, histogram-growth)");
  cmd->add_option("--rotate", args.rotate,
                  "Go on in a new file each DURATION (1h, 30s) or each SIZE (256m; k, m, g: KiB, MiB, GiB; 30m is "
                  "30 MiB, half an hour is 1800s): run.ssr, run-1.ssr, run-2.ssr, ... each readable on its own; "
                  "report run.ssr reads them all as one recording");
  cmd->add_option("--maxfiles", args.max_files, "With --rotate: keep only the newest N files, deleting the oldest");
}

void checkOptionValue(const std::string& value, const std::string& what) {
  if (value.find(',') != std::string::npos)
    throw UserError(what + " '" + value + "' contains ',', which the agent options cannot carry");
}

std::string defaultRecordingName(long pid) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  return "stackscope-" + std::to_string(pid) + "-" + stamp + ".ssr";
}

std::string agentOptions(const AgentArgs& args, const fs::path& output, const std::string& extra) {
  // -e is one option of the agent's list: only names, or it would carry others.
  if (args.event.find_first_not_of("abcdefghijklmnopqrstuvwxyz,") != std::string::npos)
    throw UserError("--event '" + args.event + "': expected a comma list of names such as cpu,gc,exception");
  std::string options = "event=" + args.event + ",interval=" + args.interval + ",status=" + args.status +
                        ",file=" + output.string();
  if (!extra.empty()) options += "," + extra;
  if (args.no_native) options += ",native=no";
  if (args.no_vthreads) options += ",vthreads=no";
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
  if (!args.rotate.empty()) {
    checkOptionValue(args.rotate, "--rotate");
    options += ",rotate=" + args.rotate;
  }
  if (!args.max_files.empty()) {
    // Said in the options' words: the agent's message would name maxfiles= and rotate=.
    if (args.rotate.empty())
      throw UserError("--maxfiles " + args.max_files +
                      " needs --rotate DURATION or SIZE (1h, 256m): without rotation the recording is one file");
    checkOptionValue(args.max_files, "--maxfiles");
    options += ",maxfiles=" + args.max_files;
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

fs::path findAgent() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find the stackscope executable: " + error.message());
  const fs::path agent = (self.parent_path() / ".." / "lib" / "libstackscope.so").lexically_normal();
  if (::access(agent.c_str(), R_OK) != 0)
    throw UserError("the agent is missing: expected " + agent.string() + " (build it, or install stackscope with its lib/ directory)");
  return agent;
}

}  // namespace stackscope::cli

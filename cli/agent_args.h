// The agent's options as command-line options, shared by the commands that load the agent:
// `record` (at JVM start) and `attach` (into a running JVM). Declared once, turned into the
// agent's option string once, and checked with the agent's own parser before anything runs.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

namespace stackscope::cli {

struct AgentArgs {
  std::string event = "cpu";
  std::string interval = "10ms";
  std::string status = "1s";
  std::string filter;          // the agent's collection-time filter, "user:u1;application:shop*"
  std::string alloc_interval;  // the alloc trace's alloc=, "512k"; "" = the agent's default
  std::string classes;         // the alloc trace's classes=, "com.shop.*;byte[]"
  std::string lock_threshold;  // the lock trace's, agent option lock=; empty: the agent's default
  std::string exceptions;      // the exception trace's source, agent option exception=; empty: created
  std::string metrics;         // the agent's metrics= list, "" = its default
  std::string histo;           // the agent's histo=, "" = no class histogram
  std::string rotate;          // the agent's rotate=, "" = one file
  std::string max_files;       // the agent's maxfiles=, "" = every file kept
  bool no_native = false;
  bool no_vthreads = false;
};

// Declares -e, -i, --status, --filter, --alloc-interval, --classes, --lock-threshold,
// --exceptions, --no-native, --no-vthreads, --metrics, --histo, --rotate and --maxfiles on `cmd`.
void addAgentArgs(CLI::App* cmd, AgentArgs& args);

// The agent's option string: the options given, file=`output`, then `extra` ("key=value,…"
// or empty). Throws UserError with the agent parser's message when it refuses them.
std::string agentOptions(const AgentArgs& args, const std::filesystem::path& output, const std::string& extra);

// The agent's options are "key=value,key=value": a ',' inside a value would split it.
void checkOptionValue(const std::string& value, const std::string& what);

// The recording of a running JVM when no -o is given: stackscope-PID-YYYYmmdd-HHMMSS.ssr
// (attach, and connect's start).
std::string defaultRecordingName(long pid);

// The agent ships next to the command: <prefix>/bin/stackscope and <prefix>/lib/libstackscope.so.
std::filesystem::path findAgent();

}  // namespace stackscope::cli

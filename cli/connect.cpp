// `stackscope connect PID|HOST:PORT|unix:PATH [COMMAND ...]`: talks to the control server of a
// running agent (docs/protocol.md). With a command, runs it once and exits with its code (for
// scripts); without, opens a prompt with line editing, history and completion (readline).
#include <readline/history.h>
#include <readline/readline.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/control_session.h"
#include "export/json_report.h"

namespace stackscope::cli {

namespace {

struct ConnectArgs {
  ControlTarget control;
  bool json = false;
  std::vector<std::string> words;
};

// readline's completion: the command names, for the first word of a line.
char* commandGenerator(const char* text, int state) {
  static size_t next = 0;
  if (state == 0) next = 0;
  const auto& names = controlCommandNames();
  while (next < names.size()) {
    const std::string& name = names[next++];
    if (name.compare(0, std::strlen(text), text) == 0) return strdup(name.c_str());
  }
  return nullptr;
}

char** completeCommand(const char* text, int start, int) {
  rl_attempted_completion_over = 1;  // no file names: the arguments are not files, mostly
  return start == 0 ? rl_completion_matches(text, commandGenerator) : nullptr;
}

// One line of input: from readline on a terminal (editing, history, completion), else plain
// lines (readline would echo each one back to a script). False at the end of input.
bool readLine(bool terminal, const std::string& text, std::string& line) {
  if (!terminal) return static_cast<bool>(std::getline(std::cin, line));
  char* raw = readline(text.c_str());
  if (!raw) return false;
  line = raw;
  std::free(raw);
  if (!splitWords(line).empty()) add_history(line.c_str());
  return true;
}

int prompt(protocol::Client& client, const std::string& target, bool json, long pid) {
  rl_attempted_completion_function = completeCommand;
  const bool terminal = isatty(STDIN_FILENO);
  const std::string text = "stackscope " + target + "> ";
  int last = 0;
  for (std::string line; readLine(terminal, text, line);) {
    const std::vector<std::string> words = splitWords(line);
    if (words.empty()) continue;
    if (words[0] == "quit" || words[0] == "exit") break;
    last = runControlCommand(client, words, json, pid, std::cout);
    std::cout.flush();
    if (last == 2 || ((words[0] == "detach" || words[0] == "close") && last == 0)) break;  // nothing left to talk to
  }
  return last == 2 ? 2 : 0;
}

int runConnect(const ConnectArgs& args) {
  protocol::Client client;
  protocol::Json hello;
  {
    const InterruptScope interrupt;  // Ctrl-C ends a connect that waits for an answer
    connectToTarget(args.control, interrupt, client, hello);
  }
  const long pid = hello.value("pid", 0L);
  if (!args.words.empty()) return runControlCommand(client, args.words, args.json, pid, std::cout);
  if (isatty(STDIN_FILENO)) {
    std::cout << "connected to pid " << hello.value("pid", int64_t{0}) << " (" << hello.value("jvm", std::string())
              << "), protocol " << hello.value("version", int64_t{0}) << "; 'help' lists the commands\n";
  }
  return prompt(client, args.control.target, args.json, pid);
}

}  // namespace

Command addConnectCommand(CLI::App& parent) {
  auto args = std::make_shared<ConnectArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "connect",
      "Control a running agent (started with control=...): status, start, stop, mark, dump, stream, filter, histo, "
      "detach, close.\n"
      "stackscope connect TARGET [--json] [--token T] [COMMAND ARGS...]: with a command, runs it once; without, "
      "an interactive prompt");
  addControlTargetArgs(cmd, args->control);
  // The command and its arguments are whatever follows that is not connect's own option.
  cmd->allow_extras();
  cmd->add_flag("--json", args->json, "Print each reply as one JSON object");
  cmd->footer(
      "commands: status | start [-e E -i I -o FILE ...] | start AGENT_OPTIONS | stop | mark NAME [--begin|--end] |\n"
      "          dump [-o FILE] | stream -o FILE [--duration D] | filter [FILTER] [--classes GLOBS] | detach | close\n"
      "start takes attach's options (stackscope connect PID start --help); -o defaults to stackscope-PID-DATE-TIME.ssr\n"
      "in the current directory, written by the JVM as its user.\n"
      "Exit codes: 0 done, 1 the agent refused or a usage mistake, 2 the connection broke.");
  return {cmd, [args, cmd] {
            args->words = cmd->remaining();
            return runConnect(*args);
          }};
}

}  // namespace stackscope::cli

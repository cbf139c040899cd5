// The commands `stackscope connect` sends to a running agent, shared by its one-shot form
// (`stackscope connect PID status`) and its prompt: each line is split into words and run by
// runControlCommand, which prints the outcome (text, or the reply as JSON with --json).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "cli/interrupt.h"
#include "protocol/client.h"

namespace stackscope::cli {

// The TARGET argument (PID, HOST:PORT or unix:PATH), --token and --connect-timeout of the
// commands that talk to an agent's control server (connect, top).
struct ControlTarget {
  std::string target;
  std::string token;
  std::string connect_timeout = "5s";
};
void addControlTargetArgs(CLI::App* cmd, ControlTarget& target);

// Connects to the target's agent and says hello; a connect that gets no answer within
// --connect-timeout, or that Ctrl-C (`interrupt`) ends, fails. Throws UserError.
void connectToTarget(const ControlTarget& target, const InterruptScope& interrupt, protocol::Client& client,
                     protocol::Json& hello);

// The command words the prompt completes, in the order `help` lists them.
const std::vector<std::string>& controlCommandNames();

// Runs one command given as words ("mark", "phase-1", "--begin"). `pid`: the agent's (hello),
// for start's default file name. Returns the exit code: 0 done, 1 the user's mistake or the
// agent's refusal (one line on stderr), 2 a broken connection or reply. Throws nothing.
int runControlCommand(protocol::Client& client, const std::vector<std::string>& words, bool json, long pid,
                      std::ostream& out);

// Splits a prompt line into words at blanks; single or double quotes keep blanks in a word.
std::vector<std::string> splitWords(const std::string& line);

}  // namespace stackscope::cli

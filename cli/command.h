// What the subcommands share: how each plugs into the command line, how a user's mistake is
// told apart from a bug (exit 1 versus 2), and how durations given on the command line are read.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace stackscope::cli {

// A mistake of the user's (bad option value, missing file, …): main prints
// "stackscope: error: <message>" and exits with 1.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A subcommand: its options are declared on `app`; `run` executes it once parsing succeeded
// and returns the exit code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command addRecordCommand(CLI::App& parent);
Command addReportCommand(CLI::App& parent);
Command addInfoCommand(CLI::App& parent);
Command addSnapshotCommand(CLI::App& parent);
Command addSnapshotsCommand(CLI::App& parent);
Command addExportCommand(CLI::App& parent);
Command addFlameCommand(CLI::App& parent);
Command addDiffCommand(CLI::App& parent);
Command addGraphCommand(CLI::App& parent);
Command addTimelineCommand(CLI::App& parent);
Command addSummaryCommand(CLI::App& parent);
Command addConnectCommand(CLI::App& parent);
Command addTopCommand(CLI::App& parent);
Command addAttachCommand(CLI::App& parent);
Command addListCommand(CLI::App& parent);

// One line on stderr for a recording just written: its samples, losses and pid, then its
// warnings; a file that cannot be read is a warning (record.cpp).
void reportRecording(const std::string& shown, const std::filesystem::path& path);

// Parses a duration such as "10ms" or "1h40m" given to `option`; throws UserError.
int64_t parseDurationOption(const std::string& text, std::string_view option);

}  // namespace stackscope::cli

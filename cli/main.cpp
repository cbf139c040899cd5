// The `stackscope` command: parses the command line, runs one subcommand and maps failures to
// exit codes: 0 success, 1 a user error (one line on stderr), 2 an internal error.
#include <algorithm>
#include <iostream>
#include <vector>

#include "cli/command.h"
#include "common/duration.h"
#include "format/reader.h"

namespace stackscope::cli {

int64_t parseDurationOption(const std::string& text, std::string_view option) {
  const auto ns = parseDuration(text);
  if (!ns) throw UserError(std::string(option) + ": '" + text + "' is not a duration (examples: 10ms, 2.6s, 1h40m)");
  return *ns;
}

namespace {

int fail(std::string_view kind, std::string_view message, int code) {
  std::cerr << "stackscope: " << kind << ": " << message << '\n';
  return code;
}

int run(int argc, char** argv) {
  CLI::App app{"stackscope: a profiler for the JVM.\nRecord a Java program, then report where it spent its time.",
               "stackscope"};
  app.set_version_flag("--version", "stackscope " STACKSCOPE_VERSION);
  app.require_subcommand(1);
  const std::vector<Command> commands = {addRecordCommand(app), addReportCommand(app), addInfoCommand(app),
                                         addSnapshotCommand(app), addSnapshotsCommand(app), addExportCommand(app),
                                         addFlameCommand(app), addDiffCommand(app), addGraphCommand(app),
                                         addTimelineCommand(app), addSummaryCommand(app), addConnectCommand(app),
                                         addTopCommand(app), addAttachCommand(app), addListCommand(app)};
  // CLI11 reports a mistyped command as "a subcommand is required"; name it instead.
  const auto named = [&](const Command& command) { return command.app->check_name(argv[1]); };
  if (argc > 1 && argv[1][0] != '-' && std::none_of(commands.begin(), commands.end(), named))
    throw UserError(std::string("unknown command '") + argv[1] + "' (commands: record, attach, list, report, info, snapshot, snapshots, export, flame, diff, graph, timeline, summary, connect; see --help)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return fail("error", std::string(e.what()) + " (see --help)", 1);
  }
  for (const Command& command : commands)
    if (command.app->parsed()) return command.run();
  return fail("internal error", "no subcommand ran", 2);
}

}  // namespace
}  // namespace stackscope::cli

int main(int argc, char** argv) {
  using namespace stackscope;
  try {
    return cli::run(argc, argv);
  } catch (const cli::UserError& e) {
    return cli::fail("error", e.what(), 1);
  } catch (const format::FormatError& e) {  // a missing file or one that is not a recording
    return cli::fail("error", e.what(), 1);
  } catch (const std::exception& e) {
    return cli::fail("internal error", e.what(), 2);
  }
}

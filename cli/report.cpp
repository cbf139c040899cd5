// `stackscope report FILE`: one view of a recording (or of a time window of it) as a table
// or as JSON.
#include <iostream>
#include <memory>

#include "analysis/call_tree.h"
#include "analysis/load.h"
#include "analysis/method_stats.h"
#include "analysis/thread_stats.h"
#include "cli/command.h"
#include "export/json_report.h"
#include "export/text_report.h"

namespace stackscope::cli {

namespace {

constexpr int64_t kDefaultTextRows = 30;  // a terminal's worth; JSON is for programs and gets all

struct ReportArgs {
  std::string file;
  std::string view = "methods";
  std::string from;
  std::string to;
  int64_t top = -1;  // -1: the default of the output kind
  bool json = false;
};

analysis::TimeWindow windowOf(const ReportArgs& args) {
  analysis::TimeWindow window;
  if (!args.from.empty()) window.from_ns = parseDurationOption(args.from, "--from");
  if (!args.to.empty()) window.to_ns = parseDurationOption(args.to, "--to");
  if (window.to_ns <= window.from_ns) throw UserError("--to must be later than --from");
  return window;
}

int runReport(const ReportArgs& args) {
  const analysis::TimeWindow window = windowOf(args);
  const analysis::Recording recording = analysis::loadRecording(args.file, window);
  exporting::ReportOptions options;
  options.file = args.file;
  options.top = static_cast<size_t>(args.top >= 0 ? args.top : args.json ? 0 : kDefaultTextRows);

  if (args.view == "methods") {
    const auto stats = analysis::computeMethodStats(recording);
    if (args.json) exporting::writeJson(std::cout, exporting::methodsJson(recording, stats, options));
    else exporting::writeMethodsText(std::cout, recording, stats, options);
  } else if (args.view == "tree") {
    const auto tree = analysis::buildCallTree(recording);
    if (args.json) exporting::writeJson(std::cout, exporting::treeJson(recording, tree, options));
    else exporting::writeTreeText(std::cout, recording, tree, options);
  } else {
    const auto stats = analysis::computeThreadStats(recording);
    if (args.json) exporting::writeJson(std::cout, exporting::threadsJson(recording, stats, options));
    else exporting::writeThreadsText(std::cout, recording, stats, options);
  }
  return 0;
}

}  // namespace

Command addReportCommand(CLI::App& parent) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = parent.add_subcommand("report", "Print where a recording spent its time");
  cmd->footer(
      "Views:\n"
      "  methods  per method: self samples (on top of the stack) and total samples (anywhere on it,\n"
      "           once per sample even under recursion), hottest first\n"
      "  tree     the call tree: Level, RL (recursion level), Calls (observed entries, a lower bound),\n"
      "           Base (samples with this exact path), Cum (Base plus descendants), indented name\n"
      "  threads  samples per thread, and per thread state in wall mode\n"
      "Times are offsets from the recording's start: --from 1m40s --to 5m. The window is [from, to).");
  cmd->add_option("file", args->file, "The recording (.ssr)")->required();
  cmd->add_option("--view", args->view, "methods (default), tree or threads")
      ->check(CLI::IsMember({"methods", "tree", "threads"}));
  cmd->add_option("--from", args->from, "Start of the window (offset from the recording's start)");
  cmd->add_option("--to", args->to, "End of the window (offset from the recording's start)");
  cmd->add_option("--top", args->top, "Rows to print; default 30 in text, all in JSON; 0 = all")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "Print one JSON object instead of a table");
  return {cmd, [args] { return runReport(*args); }};
}

}  // namespace stackscope::cli

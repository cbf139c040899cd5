// `stackscope summary FILE [--json]`: the selection summarised (analysis/summary.h): its call
// graph's size and recursion, the hottest methods, calls and path, threads, libraries and
// packages.
#include <iostream>
#include <memory>

#include "analysis/summary.h"
#include "cli/command.h"
#include "cli/selection_args.h"
#include "export/json_report.h"
#include "export/summary_report.h"

namespace stackscope::cli {

namespace {

struct SummaryArgs {
  SelectionArgs selection;
  size_t top = 10;
  bool json = false;
};

int runSummary(const SummaryArgs& args) {
  const std::unique_ptr<SelectedEvents> selected = selectEvents(args.selection);
  for (const std::string& note : selected->notes) std::cerr << "stackscope: note: " << note << "\n";
  exporting::ReportOptions options;
  options.file = args.selection.file;
  options.event = selected->scope.kind;
  options.metric = selected->scope.metric;
  options.filters = selected->selection.filters;
  if (selected->selection.snapshot) {
    options.snapshot = selected->selection.snapshot->name;
    options.snapshot_definition = selected->selection.snapshot->definition;
  }
  if (selected->selection.fragmented()) options.covered_ns = selected->covered_ns;
  options.notes = selected->notes;
  const analysis::Summary summary = analysis::summarize(selected->recording, selected->scope, args.top);
  if (args.json) exporting::writeJson(std::cout, exporting::summaryJson(selected->recording, options, summary));
  else exporting::writeSummaryText(std::cout, selected->recording, options, summary);
  return 0;
}

}  // namespace

Command addSummaryCommand(CLI::App& parent) {
  auto args = std::make_shared<SummaryArgs>();
  CLI::App* cmd = parent.add_subcommand("summary", "Summarise the selected events: call graph, hot spots, threads, libraries");
  cmd->footer(
      "The call graph's methods and calls (caller -> callee) and how much of the calls' value was\n"
      "recursive (direct or through other methods); the deepest recursion; the hottest path (from the\n"
      "root, the hottest callee at each step); the hottest methods (by self), calls and threads; the\n"
      "libraries (native modules, the JDK, the application's classes) and Java packages with their self\n"
      "and total shares. Numbers are those of report's views on the same selection.");
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("--top", args->top, "Methods, calls, threads and packages to list (default 10)")->check(CLI::Range(1, 100000));
  cmd->add_flag("--json", args->json, "Print one JSON object");
  return {cmd, [args] { return runSummary(*args); }};
}

}  // namespace stackscope::cli

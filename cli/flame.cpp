// `stackscope flame FILE -o flame.html`: the selected events as a flame graph page
// (export/flame_html.h) holding every kind of event the recording has, each in all its metrics;
// --event and --metric choose what the page shows first.
#include <iostream>
#include <memory>

#include "analysis/stack_profile.h"
#include "analysis/tree_diff.h"
#include "cli/command.h"
#include "cli/selection_args.h"
#include "export/flame_html.h"

namespace stackscope::cli {

namespace {

struct FlameArgs {
  SelectionArgs selection;
  std::string output;
  std::string baseline;  // flame --baseline: the differential graph against this recording
  std::string baseline_snapshot;
  StackArgs stacks;
};

// One kind and metric, the new side's tree coloured by its change from the baseline's.
int runDiffFlame(const FlameArgs& args, const SelectedEvents& next, const exporting::FlameOptions& options) {
  const std::unique_ptr<SelectedEvents> base = selectBaseline(args.selection, args.baseline, args.baseline_snapshot, next);
  for (const std::string& note : base->notes) std::cerr << "stackscope: note: baseline: " << note << "\n";
  const analysis::DiffTree tree =
      analysis::diffTrees(stackProfileOf(*base, base->scope, args.stacks), stackProfileOf(next, next.scope, args.stacks));
  const std::string base_name = args.baseline + (args.baseline_snapshot.empty() ? "" : " --snapshot " + args.baseline_snapshot);
  writeOutput(args.output, [&](std::ostream& out) {
    exporting::writeDiffFlameHtml(out, {&tree, next.scope.kind, next.scope.metric, base_name}, options);
  });
  return 0;
}

int runFlame(const FlameArgs& args) {
  const std::unique_ptr<SelectedEvents> selected = selectEvents(args.selection);
  for (const std::string& note : selected->notes) std::cerr << "stackscope: note: " << note << "\n";
  std::vector<exporting::FlameKind> kinds;
  exporting::FlameOptions options;
  options.title = args.selection.file;
  for (const std::string* part : {&args.selection.snapshot, &args.selection.where})
    if (!part->empty()) options.title += "  " + *part;
  if (!args.selection.from.empty() || !args.selection.to.empty())
    options.title += "  [" + args.selection.from + ", " + args.selection.to + ")";
  if (!args.baseline.empty()) return runDiffFlame(args, *selected, options);
  for (analysis::EventKind kind : selected->recording.eventKinds()) {
    exporting::FlameKind flame{kind, {}, {}};
    for (const analysis::MetricInfo& metric : analysis::eventKindInfo(kind).metrics) {
      if (kind == selected->scope.kind && &metric == selected->scope.metric) {
        options.initial_kind = kinds.size();
        options.initial_metric = flame.metrics.size();
      }
      flame.metrics.push_back(&metric);
      const analysis::EventScope scope{kind, &metric, selected->scope.keep};
      flame.profiles.push_back(stackProfileOf(*selected, scope, args.stacks));
    }
    kinds.push_back(std::move(flame));
  }
  writeOutput(args.output, [&](std::ostream& out) { exporting::writeFlameHtml(out, kinds, options); });
  return 0;
}

}  // namespace

Command addFlameCommand(CLI::App& parent) {
  auto args = std::make_shared<FlameArgs>();
  CLI::App* cmd = parent.add_subcommand("flame", "Draw the selected events as a flame graph: one HTML page");
  cmd->footer(
      "The page works offline and holds every kind of event the recording has, each in all its\n"
      "metrics (chosen in the page; --event and --metric pick the one shown first). Click a frame to\n"
      "zoom, search with a regular expression (the share of the total the matches hold is shown),\n"
      "reverse it to see callers. --from/--to/--snapshot/--where narrow the events as in report.\n"
      "--baseline BASE.ssr draws the differential graph of the chosen kind and metric: the frames of\n"
      "this recording coloured by how their share of the total changed from BASE's (red: larger,\n"
      "blue: smaller); --baseline-snapshot picks a part of BASE (BASE may be this same file).");
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("-o,--output", args->output, "The HTML file to write")->required();
  cmd->add_option("--baseline", args->baseline, "Colour the frames by their change from this recording's");
  cmd->add_option("--baseline-snapshot", args->baseline_snapshot, "The baseline's snapshot (see --snapshot)");
  addStackOptions(*cmd, args->stacks);
  return {cmd, [args] { return runFlame(*args); }};
}

}  // namespace stackscope::cli

// `stackscope diff BASE NEW`: where two recordings, or two snapshots of one, differ — per
// method, the change in self and total share (analysis/method_diff.h).
#include <iostream>
#include <memory>

#include "analysis/method_stats.h"
#include "analysis/tree_diff.h"
#include "cli/command.h"
#include "cli/selection_args.h"
#include "export/diff_report.h"
#include "export/json_report.h"

namespace stackscope::cli {

namespace {

constexpr int64_t kDefaultTextRows = 30;

struct DiffArgs {
  SelectionArgs selection;  // the new side; the base takes the same options but its snapshot
  std::string base_file;
  std::string base_snapshot;
  std::string view = "methods";
  int64_t top = -1;
  bool json = false;
  StackArgs stacks;
};

std::string sideName(const std::string& file, const std::string& snapshot) {
  return snapshot.empty() ? file : file + " --snapshot " + snapshot;
}

int runDiff(const DiffArgs& args) {
  const std::unique_ptr<SelectedEvents> next = selectEvents(args.selection);
  const std::unique_ptr<SelectedEvents> base = selectBaseline(args.selection, args.base_file, args.base_snapshot, *next);
  for (const auto* side : {base.get(), next.get()})
    for (const std::string& note : side->notes) std::cerr << "stackscope: note: " << note << "\n";
  exporting::DiffOptions options{sideName(args.base_file, args.base_snapshot),
                                 sideName(args.selection.file, args.selection.snapshot), next->scope.kind,
                                 next->scope.metric,
                                 static_cast<size_t>(args.top >= 0 ? args.top : args.json ? 0 : kDefaultTextRows)};
  if (args.view == "tree") {
    const analysis::DiffTree tree =
        analysis::diffTrees(stackProfileOf(*base, base->scope, args.stacks), stackProfileOf(*next, next->scope, args.stacks));
    if (args.json) exporting::writeJson(std::cout, exporting::diffTreeJson(tree, options));
    else exporting::writeDiffTreeText(std::cout, tree, options);
    return 0;
  }
  const analysis::MethodDiff diff =
      analysis::diffMethods(base->recording, analysis::computeMethodStats(base->recording, base->scope, args.stacks.lines),
                            next->recording, analysis::computeMethodStats(next->recording, next->scope, args.stacks.lines));
  if (args.json) exporting::writeJson(std::cout, exporting::diffJson(diff, options));
  else exporting::writeDiffText(std::cout, diff, options);
  return 0;
}

}  // namespace

Command addDiffCommand(CLI::App& parent) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = parent.add_subcommand("diff", "Compare two recordings, or two snapshots of one, method by method");
  cmd->footer(
      "Per method: its self and total share of each side's total and the change in percentage points,\n"
      "the biggest gains and losses first. Both sides take the options that choose events; --snapshot\n"
      "is the new side's and --base-snapshot the base's, so `diff run.ssr run.ssr --base-snapshot warmup\n"
      "--snapshot steady` compares two parts of one recording. --view tree compares call paths instead:\n"
      "the two sides' call trees merged by name, each path with its total share on each side.\n"
      "For a picture of the same: stackscope flame NEW --baseline BASE -o diff.html.");
  cmd->add_option("base", args->base_file, "The base recording (.ssr)")->required();
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("--base-snapshot", args->base_snapshot, "The base's snapshot (see --snapshot)");
  cmd->add_option("--view", args->view, "methods (default): per method; tree: per call path")
      ->check(CLI::IsMember({"methods", "tree"}));
  cmd->add_option("--top", args->top, "Rows to print; default 30 in text, all in JSON; 0 = all")->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "Print one JSON object instead of a table");
  addStackOptions(*cmd, args->stacks);
  return {cmd, [args] { return runDiff(*args); }};
}

}  // namespace stackscope::cli

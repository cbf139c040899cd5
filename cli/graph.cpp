// `stackscope graph FILE -o graph.svg|graph.dot`: the call graph of the selected events
// (analysis/call_graph.h) drawn by Graphviz's dot, pruned to what matters (--prune).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "analysis/call_graph.h"
#include "cli/command.h"
#include "cli/selection_args.h"
#include "export/graph_report.h"

extern char** environ;

namespace stackscope::cli {

namespace {

struct GraphArgs {
  SelectionArgs selection;
  std::string output;
  std::string prune = "1%";
  size_t max_nodes = 80;
  StackArgs stacks;
};

double parsePrune(const std::string& text) {
  std::string number = text;
  if (!number.empty() && number.back() == '%') number.pop_back();
  size_t used = 0;
  double value = -1;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
  }
  if (number.empty() || used != number.size() || value < 0 || value >= 100)
    throw UserError("--prune '" + text + "': give a share of the total from 0 to 100, e.g. 1% or 0.5");
  return value;
}

// Runs `dot -Tsvg -o OUT DOT_FILE` (no shell between: paths stay as they are).
void drawSvg(const std::string& dot_file, const std::string& output) {
  std::string tsvg = "-Tsvg", o = "-o";
  char* argv[] = {const_cast<char*>("dot"), tsvg.data(), o.data(), const_cast<char*>(output.c_str()),
                  const_cast<char*>(dot_file.c_str()), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "dot", nullptr, nullptr, argv, environ) != 0)
    throw UserError("cannot run Graphviz's dot to draw the SVG (apt-get install graphviz), or write a .dot file");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw UserError("Graphviz's dot failed to draw '" + output + "'");
}

int runGraph(const GraphArgs& args) {
  const double prune = parsePrune(args.prune);
  const bool svg = args.output.ends_with(".svg");
  if (!svg && !args.output.ends_with(".dot")) throw UserError("-o '" + args.output + "': name a .svg or a .dot file");
  const std::unique_ptr<SelectedEvents> selected = selectEvents(args.selection);
  for (const std::string& note : selected->notes) std::cerr << "stackscope: note: " << note << "\n";
  const analysis::CallGraph graph = analysis::callGraph(stackProfileOf(*selected, selected->scope, args.stacks), prune, args.max_nodes);
  std::string title = args.selection.file + ": " + analysis::eventKindName(selected->scope.kind) + " " +
                      selected->scope.metric->name + ", methods and calls of at least " + args.prune;
  if (args.max_nodes > 0 && graph.nodes.size() == args.max_nodes && graph.pruned_nodes > 0)
    title += ", the " + std::to_string(args.max_nodes) + " hottest methods";
  title += " shown";
  const std::string dot_file = svg ? args.output + ".dot.tmp" : args.output;
  writeOutput(dot_file, [&](std::ostream& out) {
    exporting::writeGraphDot(out, graph, title, analysis::unitName(selected->scope.metric->unit));
  });
  if (svg) {
    struct RemoveAfter {
      const std::string& path;
      ~RemoveAfter() { std::remove(path.c_str()); }
    } remove_dot{dot_file};
    drawSvg(dot_file, args.output);
  }
  return 0;
}

}  // namespace

Command addGraphCommand(CLI::App& parent) {
  auto args = std::make_shared<GraphArgs>();
  CLI::App* cmd = parent.add_subcommand("graph", "Draw the call graph of the selected events (Graphviz)");
  cmd->footer(
      "Nodes are methods with their self and total share, shaded by total; edges are calls with their\n"
      "cumulative value, share, count and rc (the recursive part), each event counted once however\n"
      "deep the recursion. --prune leaves out methods and calls below that share (but not a kept\n"
      "method's heaviest caller); a kept method then hangs from its nearest kept caller, so the graph\n"
      "stays connected and its totals true. --max-nodes keeps only the hottest methods. A .svg output is\n"
      "drawn by Graphviz's dot (apt-get install graphviz); a .dot output is the graph to draw yourself.");
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("-o,--output", args->output, "graph.svg or graph.dot")->required();
  cmd->add_option("--prune", args->prune, "Leave out methods and calls below this share of the total (default 1%)");
  cmd->add_option("--max-nodes", args->max_nodes, "Draw at most this many methods, the hottest by total; 0 = no limit (default 80)");
  addStackOptions(*cmd, args->stacks);
  return {cmd, [args] { return runGraph(*args); }};
}

}  // namespace stackscope::cli

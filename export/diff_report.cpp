#include "export/diff_report.h"

#include <fmt/format.h>

#include <cmath>

#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

std::string points(double change) { return fmt::format("{:+.2f}", change); }

// Rounded as jsonPercent rounds the shares of the other views: stable output for comparisons.
double rounded(double percent) { return std::round(percent * 1e4) / 1e4; }

size_t rowsShown(const analysis::MethodDiff& diff, const DiffOptions& options) {
  return options.top == 0 || options.top > diff.methods.size() ? diff.methods.size() : options.top;
}

void writeSides(std::ostream& out, const analysis::ViewTotals& base, const analysis::ViewTotals& next,
                const DiffOptions& options) {
  const std::string metric = std::string(options.metric->name) + " (" + analysis::unitName(options.metric->unit) + ")";
  writeField(out, "Base", options.base_file + ": " + std::to_string(base.samples) + " events, " +
                              std::to_string(base.value) + " " + metric);
  writeField(out, "New", options.new_file + ": " + std::to_string(next.samples) + " events, " +
                             std::to_string(next.value) + " " + metric);
  writeField(out, "Metric", std::string(analysis::eventKindName(options.event)) + " " + metric +
                                ", as shares of each side's total; changes in percentage points");
  out << '\n';
}

Json sidesJson(const char* view, const analysis::ViewTotals& base, const analysis::ViewTotals& next,
               const DiffOptions& options) {
  return {{"view", view},
          {"event", analysis::eventKindName(options.event)},
          {"metric", options.metric->name},
          {"unit", analysis::unitName(options.metric->unit)},
          {"base", {{"file", options.base_file}, {"samples", base.samples}, {"total", base.value}}},
          {"new", {{"file", options.new_file}, {"samples", next.samples}, {"total", next.value}}}};
}

// The tree's nodes in depth-first order, the larger share first, with their levels.
std::vector<std::pair<uint32_t, size_t>> preorder(const analysis::DiffTree& tree) {
  std::vector<std::pair<uint32_t, size_t>> out;
  std::vector<std::pair<uint32_t, size_t>> pending;
  const auto& roots = tree.nodes[analysis::DiffTree::kRoot].children;
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) pending.emplace_back(*it, 0);
  while (!pending.empty()) {
    const auto [node, level] = pending.back();
    pending.pop_back();
    out.emplace_back(node, level);
    const auto& children = tree.nodes[node].children;
    for (auto it = children.rbegin(); it != children.rend(); ++it) pending.emplace_back(*it, level + 1);
  }
  return out;
}

}  // namespace

void writeDiffText(std::ostream& out, const analysis::MethodDiff& diff, const DiffOptions& options) {
  writeSides(out, diff.base, diff.next, options);
  TextTable table;
  for (const char* header : {"Self chg", "Total chg", "Self base", "Self new", "Total base", "Total new"})
    table.addColumn(header, TextTable::Align::Right);
  table.addColumn("Method", TextTable::Align::Left);
  const size_t rows = rowsShown(diff, options);
  for (size_t i = 0; i < rows; ++i) {
    const analysis::MethodChange& m = diff.methods[i];
    table.addRow({points(m.selfChange()), points(m.totalChange()), formatPercent(m.base_self), formatPercent(m.new_self),
                  formatPercent(m.base_total), formatPercent(m.new_total), m.method});
  }
  table.write(out);
  writeCutNote(out, rows, diff.methods.size(), "methods");
}

Json diffJson(const analysis::MethodDiff& diff, const DiffOptions& options) {
  Json methods = Json::array();
  const size_t rows = rowsShown(diff, options);
  for (size_t i = 0; i < rows; ++i) {
    const analysis::MethodChange& m = diff.methods[i];
    methods.push_back({{"method", m.method},
                       {"base_self", rounded(m.base_self)},
                       {"new_self", rounded(m.new_self)},
                       {"self_change", rounded(m.selfChange())},
                       {"base_total", rounded(m.base_total)},
                       {"new_total", rounded(m.new_total)},
                       {"total_change", rounded(m.totalChange())}});
  }
  Json out = sidesJson("diff", diff.base, diff.next, options);
  out["methods"] = std::move(methods);
  return out;
}

void writeDiffTreeText(std::ostream& out, const analysis::DiffTree& tree, const DiffOptions& options) {
  writeSides(out, tree.base, tree.next, options);
  TextTable table;
  for (const char* header : {"Total chg", "Total base", "Total new", "Self base", "Self new"})
    table.addColumn(header, TextTable::Align::Right);
  table.addColumn("Call tree", TextTable::Align::Left);
  const std::vector<std::pair<uint32_t, size_t>> nodes = preorder(tree);
  const size_t rows = options.top == 0 || options.top > nodes.size() ? nodes.size() : options.top;
  for (size_t i = 0; i < rows; ++i) {
    const analysis::DiffTreeNode& n = tree.nodes[nodes[i].first];
    table.addRow({points(tree.nextShare(n) - tree.baseShare(n)), formatPercent(tree.baseShare(n)),
                  formatPercent(tree.nextShare(n)), formatPercent(analysis::percent(n.base_self, tree.base.value)),
                  formatPercent(analysis::percent(n.next_self, tree.next.value)), std::string(2 * nodes[i].second, ' ') + n.name});
  }
  table.write(out);
  writeCutNote(out, rows, nodes.size(), "call paths");
}

Json diffTreeJson(const analysis::DiffTree& tree, const DiffOptions& options) {
  Json nodes = Json::array();
  const std::vector<std::pair<uint32_t, size_t>> order = preorder(tree);
  const size_t rows = options.top == 0 || options.top > order.size() ? order.size() : options.top;
  for (size_t i = 0; i < rows; ++i) {
    const analysis::DiffTreeNode& n = tree.nodes[order[i].first];
    nodes.push_back({{"method", n.name},
                     {"level", order[i].second},
                     {"base_self", rounded(analysis::percent(n.base_self, tree.base.value))},
                     {"new_self", rounded(analysis::percent(n.next_self, tree.next.value))},
                     {"base_total", rounded(tree.baseShare(n))},
                     {"new_total", rounded(tree.nextShare(n))},
                     {"total_change", rounded(tree.nextShare(n) - tree.baseShare(n))}});
  }
  Json out = sidesJson("diff-tree", tree.base, tree.next, options);
  out["nodes"] = std::move(nodes);
  return out;
}

}  // namespace stackscope::exporting

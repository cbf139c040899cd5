#include "export/text_report.h"

#include <fmt/format.h>

#include "analysis/names.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

using Align = TextTable::Align;

void writeMethodsText(std::ostream& out, const analysis::Recording& rec, const analysis::MethodStats& stats,
                      const ReportOptions& options) {
  writeTextHeader(out, rec, options, stats.totals);
  out << '\n';
  const analysis::MethodNames names(rec);
  TextTable table;
  table.addColumn("Self", Align::Right);
  table.addColumn("Self%", Align::Right);
  table.addColumn("Total", Align::Right);
  table.addColumn("Total%", Align::Right);
  if (options.kinds) table.addColumn("Kind", Align::Left);
  table.addColumn("Method", Align::Left);
  const size_t shown = options.rows(stats.methods.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::MethodStat& m = stats.methods[i];
    std::vector<std::string> row{metricText(m.self, options), formatPercent(analysis::percent(m.self, stats.totals.value)),
                                 metricText(m.total, options), formatPercent(analysis::percent(m.total, stats.totals.value))};
    if (options.kinds) row.push_back(analysis::frameKindName(m.kinds));
    row.push_back(frameLabel(names, m.method, m.line));
    table.addRow(std::move(row));
  }
  table.write(out);
  writeCutNote(out, shown, stats.methods.size(), "methods");
}

void writeTreeText(std::ostream& out, const analysis::Recording& rec, const analysis::CallTree& tree,
                   const ReportOptions& options) {
  writeTextHeader(out, rec, options, tree.totals);
  out << '\n';
  const analysis::MethodNames names(rec);
  TextTable table;
  for (const char* column : {"Level", "RL", "Calls", "Base", "Cum"}) table.addColumn(column, Align::Right);
  if (options.kinds) table.addColumn("Kind", Align::Left);
  table.addColumn("Method", Align::Left);
  const std::vector<uint32_t> order = tree.preorder();
  const size_t shown = options.rows(order.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CallTreeNode& node = tree.nodes[order[i]];
    std::vector<std::string> row{std::to_string(node.level), std::to_string(node.rl), std::to_string(node.calls),
                                 metricText(node.base, options), metricText(node.cum, options)};
    if (options.kinds) row.push_back(analysis::frameKindName(node.kinds));
    row.push_back(std::string(2 * static_cast<size_t>(node.level), ' ') + frameLabel(names, node.method, node.line));
    table.addRow(std::move(row));
  }
  table.write(out);
  writeCutNote(out, shown, order.size(), "nodes");
}

void writeThreadsText(std::ostream& out, const analysis::Recording& rec, const analysis::ThreadStats& stats,
                      const ReportOptions& options) {
  writeTextHeader(out, rec, options, stats.totals);
  out << '\n';
  // One column per state that occurs. In cpu mode every sample is "running", which says
  // nothing the value column does not, so states are shown for wall events or when they differ.
  std::vector<size_t> states;
  for (size_t s = 0; s < stats.states.size(); ++s)
    if (stats.states[s] > 0) states.push_back(s);
  if (options.event != analysis::EventKind::Wall && states.size() < 2) states.clear();

  TextTable table;
  table.addColumn(metricColumn(options), Align::Right);
  table.addColumn("Pct", Align::Right);
  for (size_t s : states) table.addColumn(format::threadStateName(static_cast<format::ThreadState>(s)), Align::Right);
  table.addColumn("Tid", Align::Right);
  table.addColumn("Thread", Align::Left);
  const size_t shown = options.rows(stats.threads.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::ThreadStat& t = stats.threads[i];
    std::vector<std::string> row{metricText(t.value, options), formatPercent(analysis::percent(t.value, stats.totals.value))};
    for (size_t s : states) row.push_back(metricText(t.states[s], options));
    row.push_back(std::to_string(rec.threads[t.thread].os_tid));
    row.push_back(analysis::threadName(rec, t.thread));
    table.addRow(std::move(row));
  }
  table.write(out);
  writeCutNote(out, shown, stats.threads.size(), "threads");
}

}  // namespace stackscope::exporting

#include "export/navigation_report.h"

#include <algorithm>

#include "analysis/names.h"
#include "export/json_report.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

using Align = TextTable::Align;

namespace {

// A metric of stored quantities (ns of a wait or a pause, bytes): its largest single value
// tells one long event from many short ones, so the group views show it. A count's largest
// is one event's weight, which says nothing.
bool showsMax(const ReportOptions& options) { return options.metric->source == analysis::MetricSource::Amount; }

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

// "pkg.Cache.fill (12), pkg.Cache.drop (3)": at most three methods, then how many more.
std::string heldInText(const std::vector<analysis::HeldIn>& held_in) {
  constexpr size_t kShown = 3;
  std::vector<std::string> parts;
  for (size_t i = 0; i < std::min(held_in.size(), kShown); ++i)
    parts.push_back(held_in[i].method + " (" + std::to_string(held_in[i].events) + ")");
  if (held_in.size() > kShown) parts.push_back(std::to_string(held_in.size() - kShown) + " more");
  return joined(parts);
}

}  // namespace

void writeCallersText(std::ostream& out, const analysis::Recording& rec, const analysis::CallersTree& tree,
                      const std::vector<std::string>& focus, const ReportOptions& options) {
  writeTextHeader(out, rec, options, tree.totals);
  writeField(out, "Callers of", joined(focus) + " (" + std::to_string(tree.focusValue()) + " " + metricKey(options) + ", " +
                                    formatPercent(analysis::percent(tree.focusValue(), tree.totals.value)) + " of the view)");
  out << '\n';
  const analysis::MethodNames names(rec);
  TextTable table;
  for (const std::string& column : {std::string("Level"), metricColumn(options), std::string("Pct"), std::string("Entry")})
    table.addColumn(column, Align::Right);
  if (options.kinds) table.addColumn("Kind", Align::Left);
  table.addColumn("Method (callers below the method they call)", Align::Left);
  const std::vector<uint32_t> order = tree.preorder();
  const size_t shown = options.rows(order.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CallersNode& node = tree.nodes[order[i]];
    std::vector<std::string> row{std::to_string(node.level), metricText(node.value, options),
                                 formatPercent(analysis::percent(node.value, tree.totals.value)),
                                 metricText(node.self, options)};
    if (options.kinds) row.push_back(analysis::frameKindName(node.kinds));
    row.push_back(std::string(2 * static_cast<size_t>(node.level), ' ') + frameLabel(names, node.method, node.line));
    table.addRow(std::move(row));
  }
  table.write(out);
  writeCutNote(out, shown, order.size(), "nodes");
}

Json callersJson(const analysis::Recording& rec, const analysis::CallersTree& tree, const std::vector<std::string>& focus,
                 const ReportOptions& options) {
  Json out = jsonHeader(rec, options, "callers", tree.totals);
  out["focus"] = focus;
  out["focus_" + metricKey(options)] = tree.focusValue();
  const analysis::MethodNames names(rec);
  Json nodes = Json::array();
  const std::vector<uint32_t> order = tree.preorder();
  const size_t shown = options.rows(order.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CallersNode& node = tree.nodes[order[i]];
    Json item{{"id", order[i]},
              {"parent", node.parent == analysis::CallersTree::kRoot ? Json(nullptr) : Json(node.parent)},
              {"level", node.level},
              {metricKey(options), node.value},
              {"pct", jsonPercent(node.value, tree.totals.value)},
              {"self", node.self}};
    item.update(methodJson(names, rec, node.method, node.line, node.kinds, options));
    nodes.push_back(std::move(item));
  }
  out["nodes"] = std::move(nodes);
  return out;
}

void writeGroupText(std::ostream& out, const analysis::Recording& rec, const analysis::GroupStats& stats,
                    const std::string& view, const ReportOptions& options) {
  writeTextHeader(out, rec, options, stats.totals);
  out << '\n';
  TextTable table;
  table.addColumn(metricColumn(options), Align::Right);
  table.addColumn("Pct", Align::Right);
  // How many events and the largest: many short waits, or a few long ones.
  if (showsMax(options)) {
    table.addColumn("Events", Align::Right);
    table.addColumn("Max", Align::Right);
  }
  // "users" -> "user", "classes" -> "class"
  std::string column = view.substr(0, view.size() - (view.ends_with("sses") ? 2 : 1));
  column[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(column[0])));
  table.addColumn(column, Align::Left);
  // Owners: where looks saw them hold the lock (its method, the events a look saw there).
  const bool held_in = std::any_of(stats.groups.begin(), stats.groups.end(), [](auto& g) { return !g.held_in.empty(); });
  if (held_in) table.addColumn("Held in (events seen there)", Align::Left);
  const size_t shown = options.rows(stats.groups.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::GroupStat& g = stats.groups[i];
    std::vector<std::string> row{metricText(g.value, options), formatPercent(analysis::percent(g.value, stats.totals.value))};
    if (showsMax(options)) {
      row.push_back(std::to_string(g.events));
      row.push_back(metricText(g.max, options));
    }
    row.push_back(g.name);
    if (held_in) row.push_back(heldInText(g.held_in));
    table.addRow(row);
  }
  table.write(out);
  writeCutNote(out, shown, stats.groups.size(), view);
}

Json groupJson(const analysis::Recording& rec, const analysis::GroupStats& stats, const std::string& view,
               const ReportOptions& options) {
  Json out = jsonHeader(rec, options, view, stats.totals);
  Json groups = Json::array();
  const size_t shown = options.rows(stats.groups.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::GroupStat& g = stats.groups[i];
    Json item{{"value", g.name}, {"unset", g.unset}, {metricKey(options), g.value}, {"pct", jsonPercent(g.value, stats.totals.value)}};
    if (showsMax(options)) {
      item["events"] = g.events;
      item["max"] = g.max;
      item["max_at_ns"] = g.max_at_ns;
    }
    if (view == "owners") {
      Json held_in = Json::array();
      for (const analysis::HeldIn& h : g.held_in) held_in.push_back({{"method", h.method}, {"events", h.events}});
      item["held_in"] = std::move(held_in);
    }
    groups.push_back(std::move(item));
  }
  out[view] = std::move(groups);
  return out;
}

}  // namespace stackscope::exporting

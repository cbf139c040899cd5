#include "export/graph_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using analysis::CallGraph;

// With threads merged, a method run by a started thread is a node apart from its starter's: its
// name says at which thread level.
std::string nodeName(const CallGraph& graph, uint32_t node) {
  const analysis::ProfileFrame& frame = graph.frames[graph.nodes[node].frame];
  return frame.thread_level == 0 ? frame.name : frame.name + " [thread level " + std::to_string(frame.thread_level) + "]";
}

// A dot string literal: quotes and backslashes escaped, line breaks as dot's \n.
std::string dotString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') out += "\\n";  // dot's line break in a label
    else out.push_back(c);
  }
  return out + "\"";
}

}  // namespace

void writeGraphText(std::ostream& out, const analysis::Recording& recording, const CallGraph& graph,
                    const ReportOptions& options) {
  writeTextHeader(out, recording, options, graph.totals);
  out << '\n';
  const std::string metric = metricColumn(options);
  TextTable nodes;
  for (const std::string& header : std::vector<std::string>{"Self " + metric, "Self %", "Total " + metric, "Total %"})
    nodes.addColumn(header, TextTable::Align::Right);
  nodes.addColumn("Method", TextTable::Align::Left);
  const size_t node_rows = options.rows(graph.nodes.size());
  for (size_t i = 0; i < node_rows; ++i) {
    const analysis::GraphNode& node = graph.nodes[i];
    nodes.addRow({metricText(node.self, options), formatPercent(analysis::percent(node.self, graph.totals.value)),
                  metricText(node.total, options), formatPercent(analysis::percent(node.total, graph.totals.value)),
                  nodeName(graph, static_cast<uint32_t>(i))});
  }
  nodes.write(out);
  writeCutNote(out, node_rows, graph.nodes.size(), "methods");
  out << '\n';
  TextTable edges;
  for (const std::string& header : std::vector<std::string>{"Cum " + metric, "Cum %", "Count", "rc"}) edges.addColumn(header, TextTable::Align::Right);
  edges.addColumn("Caller -> callee", TextTable::Align::Left);
  const size_t edge_rows = options.rows(graph.edges.size());
  for (size_t i = 0; i < edge_rows; ++i) {
    const analysis::GraphEdge& edge = graph.edges[i];
    edges.addRow({metricText(edge.value, options), formatPercent(analysis::percent(edge.value, graph.totals.value)),
                  std::to_string(edge.samples), metricText(edge.recursive, options),
                  nodeName(graph, edge.caller) + " -> " + nodeName(graph, edge.callee)});
  }
  edges.write(out);
  writeCutNote(out, edge_rows, graph.edges.size(), "calls");
}

Json graphJson(const analysis::Recording& recording, const CallGraph& graph, const ReportOptions& options) {
  Json json = jsonHeader(recording, options, "graph", graph.totals);
  Json nodes = Json::array();
  for (size_t i = 0; i < options.rows(graph.nodes.size()); ++i) {
    const analysis::GraphNode& node = graph.nodes[i];
    nodes.push_back({{"method", nodeName(graph, static_cast<uint32_t>(i))},
                     {"kind", analysis::profileFrameKindName(graph.frames[node.frame].kind)},
                     {"self", node.self},
                     {"self_percent", jsonPercent(node.self, graph.totals.value)},
                     {"total", node.total},
                     {"total_percent", jsonPercent(node.total, graph.totals.value)}});
  }
  Json edges = Json::array();
  for (size_t i = 0; i < options.rows(graph.edges.size()); ++i) {
    const analysis::GraphEdge& edge = graph.edges[i];
    edges.push_back({{"caller", nodeName(graph, edge.caller)},
                     {"callee", nodeName(graph, edge.callee)},
                     {"value", edge.value},
                     {"percent", jsonPercent(edge.value, graph.totals.value)},
                     {"samples", edge.samples},
                     {"recursive", edge.recursive}});
  }
  json["pruned_methods"] = graph.pruned_nodes;
  json["pruned_calls"] = graph.pruned_edges;
  json["nodes"] = std::move(nodes);
  json["edges"] = std::move(edges);
  return json;
}

void writeGraphDot(std::ostream& out, const CallGraph& graph, const std::string& title, const std::string& unit) {
  const double whole = static_cast<double>(std::max<uint64_t>(graph.totals.value, 1));
  out << "digraph stackscope {\n"
      << "  label=" << dotString(title) << "; labelloc=t;\n"
      << "  node [shape=box, style=filled, fontname=\"Helvetica\", fontsize=10];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const analysis::GraphNode& node = graph.nodes[i];
    const double share = static_cast<double>(node.total) / whole;
    // Hotter is redder: white at 0 %, full red at 100 % of the total.
    const int shade = static_cast<int>(255 - 200 * share);
    out << "  n" << i << " [label=" << dotString(fmt::format("{}\nself {:.2f}%  total {:.2f}%", nodeName(graph, static_cast<uint32_t>(i)),
                                                          100.0 * static_cast<double>(node.self) / whole, 100 * share))
        << ", fillcolor=\"#ff" << fmt::format("{:02x}{:02x}", shade, shade) << "\"];\n";
  }
  for (const analysis::GraphEdge& edge : graph.edges) {
    std::string label = fmt::format("{} {}\n{:.2f}%  n={}", edge.value, unit, 100.0 * static_cast<double>(edge.value) / whole, edge.samples);
    if (edge.recursive > 0) label += fmt::format("  rc={}", edge.recursive);
    out << "  n" << edge.caller << " -> n" << edge.callee << " [label=" << dotString(label)
        << ", penwidth=" << fmt::format("{:.2f}", 1 + 4 * static_cast<double>(edge.value) / whole) << "];\n";
  }
  out << "}\n";
}

}  // namespace stackscope::exporting

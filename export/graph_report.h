// The call graph (analysis/call_graph.h) as a table (report --view graph), as JSON, and as
// Graphviz's dot language (stackscope graph), nodes shaded by their share of the total.
#pragma once

#include <ostream>

#include "analysis/call_graph.h"
#include "export/report_header.h"

namespace stackscope::exporting {

void writeGraphText(std::ostream& out, const analysis::Recording& recording, const analysis::CallGraph& graph,
                    const ReportOptions& options);
// The header, then "nodes": [{method, kind, self, self_percent, total, total_percent}] and
// "edges": [{caller, callee, value, percent, samples, recursive}], values in the metric.
Json graphJson(const analysis::Recording& recording, const analysis::CallGraph& graph, const ReportOptions& options);
void writeGraphDot(std::ostream& out, const analysis::CallGraph& graph, const std::string& title, const std::string& unit);

}  // namespace stackscope::exporting

// The views reached by navigation: callers of a method (back-traces), and the metric's value
// grouped by thread state or by an annotation field (users, sessions, requests, applications,
// components). Text tables and JSON, with the same header as every report. METRIC below is a
// member named after the view's metric ("samples", "time", "bytes"…), in its unit.
//   callers JSON: "focus": [patterns], "focus_METRIC", "nodes": [{id, parent, level, METRIC,
//                 pct (of the view's total), self, and methodJson's members} depth-first;
//   group JSON:   [{value, unset, METRIC, pct}] under a key named by the view ("states",
//                 "users", …); the unset group reads "(none)" with unset true.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/callers.h"
#include "analysis/group_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

void writeCallersText(std::ostream& out, const analysis::Recording& recording, const analysis::CallersTree& tree,
                      const std::vector<std::string>& focus, const ReportOptions& options);
Json callersJson(const analysis::Recording& recording, const analysis::CallersTree& tree,
                 const std::vector<std::string>& focus, const ReportOptions& options);

// `view` names the grouping ("states", "users", …) and its column. In a metric of stored
// quantities (ns, bytes) each group also has its largest single value: Max, JSON `max` and
// `max_at_ns`.
void writeGroupText(std::ostream& out, const analysis::Recording& recording, const analysis::GroupStats& stats,
                    const std::string& view, const ReportOptions& options);
Json groupJson(const analysis::Recording& recording, const analysis::GroupStats& stats, const std::string& view,
               const ReportOptions& options);

}  // namespace stackscope::exporting

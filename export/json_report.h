// The views of `stackscope report --json`: one object per view, the header's members first
// (view, event, metric, unit, file, mode, interval_ns, duration_ns = length of the view,
// recording_duration_ns, finished, window, samples = samples in the view, total = the view's
// value in the metric, lost, lost_total, warnings, and when they apply lost_attribution and
// unmatched), then
//   methods: "methods": [{METHOD, self, total, self_pct, total_pct}], hottest first;
//   tree:    "nodes": the call tree flattened depth-first, each {id, parent, level, rl, calls,
//            base, cum, cum_pct, METHOD}; parent is null for roots and always
//            precedes its children, so a prefix cut by --top is still a tree;
//   threads: "threads": [{name, id, os_tid, java_id, METRIC, pct, states: {state: value},
//            start_ns, end_ns (null when the recording does not say)}].
// METHOD is the members of methodJson; METRIC is a member named after the metric ("samples",
// "time", "bytes"…). Every count (self, total, base, cum, METRIC, states) is the metric's value
// in its unit; percentages are of the view's total.
#pragma once

#include <ostream>

#include "analysis/call_tree.h"
#include "analysis/method_stats.h"
#include "analysis/names.h"
#include "analysis/thread_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

// A row's method: method (normalised `pkg.Class.method`), display (the text's name, with the
// parameters where overloads share a name), params (Java parameter types), signature (JVM
// descriptor), raw (the name as recorded, e.g. with a lambda's address), raw_merged (every
// raw name, when the row merges several), kind (java, native, java+native: from the bci),
// and with --lines, line (null when unknown).
Json methodJson(const analysis::MethodNames& names, const analysis::Recording& recording, uint32_t method, uint32_t line,
                uint8_t kinds, const ReportOptions& options);

Json methodsJson(const analysis::Recording& recording, const analysis::MethodStats& stats, const ReportOptions& options);
Json treeJson(const analysis::Recording& recording, const analysis::CallTree& tree, const ReportOptions& options);
Json threadsJson(const analysis::Recording& recording, const analysis::ThreadStats& stats, const ReportOptions& options);

// {state name: value} for the states with a value.
Json stateCounts(const analysis::StateCounts& states);

// Pretty-printed with a final newline.
void writeJson(std::ostream& out, const Json& json);

}  // namespace stackscope::exporting

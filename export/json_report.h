// The views of `stackscope report --json`: one object per view, the header's members first
// (view, file, mode, interval_ns, duration_ns = length of the view, recording_duration_ns,
// finished, window, samples = samples in the view, lost, lost_total, warnings), then
//   methods: "methods": [{method, signature, self, total, self_pct, total_pct}], hottest first;
//   tree:    "nodes": the call tree flattened depth-first, each {id, parent, level, rl, calls,
//            base, cum, cum_pct, method, signature}; parent is null for roots and always
//            precedes its children, so a prefix cut by --top is still a tree;
//   threads: "threads": [{name, id, os_tid, java_id, samples, pct, states: {state: samples},
//            start_ns, end_ns (null when the recording does not say)}].
// Counts are samples; percentages are of the view's samples.
#pragma once

#include <ostream>

#include "analysis/call_tree.h"
#include "analysis/method_stats.h"
#include "analysis/thread_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

Json methodsJson(const analysis::Recording& recording, const analysis::MethodStats& stats, const ReportOptions& options);
Json treeJson(const analysis::Recording& recording, const analysis::CallTree& tree, const ReportOptions& options);
Json threadsJson(const analysis::Recording& recording, const analysis::ThreadStats& stats, const ReportOptions& options);

// Pretty-printed with a final newline.
void writeJson(std::ostream& out, const Json& json);

}  // namespace stackscope::exporting

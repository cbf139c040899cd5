// The diff of two method statistics (analysis/method_diff.h) as a table or as JSON.
#pragma once

#include <ostream>
#include <string>

#include "analysis/method_diff.h"
#include "analysis/tree_diff.h"
#include "export/report_header.h"

namespace stackscope::exporting {

struct DiffOptions {
  std::string base_file, new_file;  // as the user named them, with the snapshot when one was given
  analysis::EventKind event = analysis::EventKind::Cpu;
  const analysis::MetricInfo* metric = nullptr;
  size_t top = 0;  // rows; 0 = all
};

void writeDiffText(std::ostream& out, const analysis::MethodDiff& diff, const DiffOptions& options);
// {"view": "diff", "event", "metric", "unit", "base": {file, samples, total}, "new": {…},
//  "methods": [{method, base_self, new_self, self_change, base_total, new_total, total_change}]}
// with shares and changes in percent (points).
Json diffJson(const analysis::MethodDiff& diff, const DiffOptions& options);

// The merged call tree (analysis/tree_diff.h) in depth-first order, the larger share first:
// per path, each side's total (and self) share and the change in the total's.
void writeDiffTreeText(std::ostream& out, const analysis::DiffTree& tree, const DiffOptions& options);
// {"view": "diff-tree", …, "nodes": [{method, level, base_self, new_self, base_total, new_total,
//  total_change}]} in the same order.
Json diffTreeJson(const analysis::DiffTree& tree, const DiffOptions& options);

}  // namespace stackscope::exporting

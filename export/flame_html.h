// The flame graph: one self-contained HTML page (no network: its script, styles and data are
// inline) showing the call tree of every kind of event the recording holds, in each of the
// kind's metrics, with zoom, search (and the share of the total the matches hold), a reversed
// (callers) mode and frames coloured by kind. The page is export/flame_template.html; this
// fills in its data: per kind, the distinct frames and the call tree as a flat list of nodes.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/stack_profile.h"
#include "analysis/tree_diff.h"

namespace stackscope::exporting {

// One kind of event: its profile in each of its metrics (the same events, so the same stacks).
struct FlameKind {
  analysis::EventKind kind = analysis::EventKind::Cpu;
  std::vector<const analysis::MetricInfo*> metrics;
  std::vector<analysis::StackProfile> profiles;  // parallel to metrics
};

struct FlameOptions {
  std::string title;           // the page's title: the recording's file name and selection
  size_t initial_kind = 0;     // index into the kinds shown first
  size_t initial_metric = 0;   // index into that kind's metrics
};

void writeFlameHtml(std::ostream& out, const std::vector<FlameKind>& kinds, const FlameOptions& options);

// The differential flame graph: the new side's call tree drawn as usual (widths are its values),
// each frame coloured by how its total share changed from the baseline's (red: larger now,
// blue: smaller). Paths only in the baseline have no width to be drawn; the page says how much
// of the baseline they held.
struct FlameBaseline {
  const analysis::DiffTree* tree = nullptr;
  analysis::EventKind kind = analysis::EventKind::Cpu;
  const analysis::MetricInfo* metric = nullptr;
  std::string base_name;  // the baseline's file (and snapshot), as the user named it
};
void writeDiffFlameHtml(std::ostream& out, const FlameBaseline& baseline, const FlameOptions& options);

}  // namespace stackscope::exporting

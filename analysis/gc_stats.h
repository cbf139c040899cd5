// The gc trace's collections by collector, with their causes: what `report --view gc` lists.
// A composition of the common grouping (group_stats.h) over gc events, so every snapshot,
// --where filter and resource name narrows it as it narrows any view.
#pragma once

#include <vector>

#include "analysis/group_stats.h"

namespace stackscope::analysis {

struct CollectorStats {
  GroupStat pauses;              // in gc time: count (samples), total, longest (max) and when, first, last
  std::vector<GroupStat> causes;  // in gc count, most frequent first
};

struct GcStats {
  EventAggregate all;                      // every collection of the scope, in gc time
  std::vector<CollectorStats> collectors;  // most total time first
};

// The gc events of `keep`, valued in gc time; nothing when `kind` is not gc (a recording
// without the gc trace).
GcStats computeGcStats(const Recording& recording, EventKind kind, const EventPredicate& keep);

}  // namespace stackscope::analysis

// The gc trace's collections by collector, with their causes: what `report --view gc` lists.
// A composition of the common grouping (group_stats.h) over gc events, so every snapshot,
// --where filter and resource name narrows it as it narrows any view.
#pragma once

#include <cstdint>
#include <optional>
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

// How many collections ran in the window, as far as the recording tells: what makes the live
// view's "not freed" mean something (with none, every sampled allocation is live). From the
// gc trace's events when it was recorded; else from the status reports' cumulative count,
// between the first and the last report in the window (collections before the first report
// are not seen: at_least); else unknown (nullopt). An object freed in the window proves one.
struct CollectionCount {
  uint64_t count = 0;
  bool at_least = false;
  const char* source = "";  // "gc trace" or "status reports"
};
std::optional<CollectionCount> collectionsInWindow(const Recording& recording);

}  // namespace stackscope::analysis

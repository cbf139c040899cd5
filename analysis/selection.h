// What a report looks at: a snapshot (marker or saved), a time window, a --where filter and
// the selections of a resource name, resolved into one set of intervals and one predicate.
// Resolving reads only the recording's map data; the events are read once, afterwards.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/resource_name.h"
#include "analysis/snapshots.h"
#include "analysis/view.h"

namespace stackscope::analysis {

struct SelectionRequest {
  std::string snapshot;      // "" = the whole recording
  TimeWindow window;         // --from / --to
  std::string where;         // "" = no filter
  std::string resource;      // the view's resource name ("methods" when empty)
};

struct Selection {
  std::optional<Snapshot> snapshot;
  std::vector<TimeWindow> intervals;  // sorted, disjoint; what the view covers
  std::vector<std::string> filters;   // --where expressions that must all hold
  ResourceName resource;

  // The single window the loader reads (the hull of the intervals).
  TimeWindow hull() const;
  // Time covered by the intervals, clipped to [0, end_ns].
  int64_t coveredNs(int64_t end_ns) const;
  // True when the intervals are not simply the hull (a snapshot of several pairs).
  bool fragmented() const { return intervals.size() > 1; }
  // True when something beyond the hull narrows the events (selectionPredicate is not empty):
  // a filter, a navigation step's values, several intervals.
  bool narrowsEvents() const { return !filters.empty() || resource.filter() != nullptr || fragmented(); }
  // Everything that decides the view's content, as text: a cache key part.
  std::string key() const;
};

// Throws SnapshotError, WhereError or ResourceNameError with a message for the user.
Selection resolveSelection(const std::string& recording_path, const SelectionRequest& request);

// The predicate of the whole selection over a recording loaded for its hull. Every filter is
// checked (parsed) here too, so a bad one fails before any statistic runs.
EventPredicate selectionPredicate(const Selection& selection, const Recording& recording);

// The method, class and package patterns of the selection (filters and resource name) that
// match no method of the recording, for a note beside an empty view.
std::vector<std::string> unmatchedMethodPatterns(const Selection& selection, const Recording& recording);

}  // namespace stackscope::analysis

// Snapshots: named parts of a recording, each a set of time intervals plus a logical filter.
//   - marker snapshots come from the application's markers: a Stackscope.begin/end pair named
//     NAME (every pair of that name: a union of intervals), or "A..B", from point marker A to
//     the next point marker B;
//   - saved snapshots are definitions kept in a sidecar file (snapshot_store.h): an interval,
//     a --where filter and optionally a parent snapshot. A child is the intersection of its
//     own interval and filter with its parent's, to any depth.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/recording.h"
#include "format/records.h"

namespace stackscope::analysis {

struct MarkerEvent {
  int64_t time_ns = 0;
  uint32_t thread = 0;
  format::MarkerKind kind = format::MarkerKind::Point;
  std::string name;
};

struct SavedSnapshot {
  std::string name;
  int64_t from_ns = 0;
  int64_t to_ns = TimeWindow::kOpen;
  std::string where;   // "" = no filter
  std::string parent;  // "" = none; a saved or a marker snapshot
};

struct Snapshot {
  std::string name;
  std::vector<TimeWindow> intervals;  // disjoint, sorted; empty = an empty snapshot
  std::vector<std::string> filters;   // --where expressions that must all hold
  std::string definition;             // how it was made, for people

  // The smallest single window that holds every interval (what the loader must read).
  TimeWindow hull() const;
  bool contains(int64_t time_ns) const;
};

class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Intervals of every begin/end pair named `name` (an unclosed begin runs to `end_ns`).
std::vector<TimeWindow> markerIntervals(const std::vector<MarkerEvent>& markers, const std::string& name, int64_t end_ns);

// Resolves NAME: a saved snapshot first, then a begin/end pair, then "A..B". Throws
// SnapshotError naming what exists when nothing matches, or on a cycle of parents.
Snapshot resolveSnapshot(const std::string& name, const std::vector<MarkerEvent>& markers,
                         const std::vector<SavedSnapshot>& saved, int64_t end_ns);

// The intersection of two sorted, disjoint interval sets.
std::vector<TimeWindow> intersect(const std::vector<TimeWindow>& a, const std::vector<TimeWindow>& b);

}  // namespace stackscope::analysis

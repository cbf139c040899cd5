// Snapshots: named parts of a recording, each a set of time intervals plus a logical filter.
//   - marker snapshots come from the application's markers: a Stackscope.begin/end pair named
//     NAME (every pair of that name: a union of intervals), or "A..B", from point marker A to
//     the next point marker B;
//   - saved snapshots are definitions kept in a sidecar file (snapshot_store.h): an interval,
//     a --where filter and optionally a parent snapshot. A child is the intersection of its
//     own interval and filter with its parent's, to any depth.
#pragma once

#include <cstdint>
#include <memory>
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
  // What a user should know about how it resolved (an unclosed begin marker, an end
  // without a begin, a child that meets nothing of its parent…), one line each.
  std::vector<std::string> notes;

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
// The begin markers named `name` left open at the end and the end markers that had no
// begin to close, as notes for people; empty when every pair is whole.
std::vector<std::string> markerNotes(const std::vector<MarkerEvent>& markers, const std::string& name);

// Parents deeper than this are refused (SnapshotError).
inline constexpr size_t kMaxSnapshotDepth = 100;

// Resolves NAME: a saved snapshot first, then a begin/end pair, then "A..B". Throws
// SnapshotError naming what exists when nothing matches, or on a cycle of parents.
Snapshot resolveSnapshot(const std::string& name, const std::vector<MarkerEvent>& markers,
                         const std::vector<SavedSnapshot>& saved, int64_t end_ns);

class SnapshotResolution;

// Resolves many names against one set of markers and definitions (the `snapshots` listing):
// the definitions are indexed once instead of for every name.
class SnapshotResolver {
 public:
  SnapshotResolver(const std::vector<MarkerEvent>& markers, const std::vector<SavedSnapshot>& saved, int64_t end_ns);
  ~SnapshotResolver();
  Snapshot resolve(const std::string& name);  // as resolveSnapshot

 private:
  std::unique_ptr<SnapshotResolution> resolver_;
};

// The intersection of two sorted, disjoint interval sets.
std::vector<TimeWindow> intersect(const std::vector<TimeWindow>& a, const std::vector<TimeWindow>& b);

}  // namespace stackscope::analysis

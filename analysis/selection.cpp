#include "analysis/selection.h"

#include <algorithm>
#include <memory>

#include "analysis/recording_set.h"
#include "analysis/snapshot_store.h"
#include "analysis/where_filter.h"

namespace stackscope::analysis {

TimeWindow Selection::hull() const {
  if (intervals.empty()) return {0, 0};
  return {intervals.front().from_ns, intervals.back().to_ns};
}

int64_t Selection::coveredNs(int64_t end_ns) const {
  int64_t total = 0;
  for (const TimeWindow& w : intervals) {
    const int64_t from = std::max<int64_t>(w.from_ns, 0), to = std::min(w.to_ns, end_ns);
    if (to > from) total += to - from;
  }
  return total;
}

std::string Selection::key() const {
  std::string key = "resource=" + resource.toString() + "\nintervals=";
  for (const TimeWindow& w : intervals) key += std::to_string(w.from_ns) + ".." + std::to_string(w.to_ns) + ";";
  for (const std::string& f : filters) key += "\nwhere=" + f;
  return key;
}

Selection resolveSelection(const std::string& recording_path, const SelectionRequest& request) {
  Selection selection;
  selection.resource = parseResourceName(request.resource.empty() ? "methods" : request.resource);
  selection.intervals = {request.window};
  if (!request.snapshot.empty()) {
    const Recording maps = loadMapDataSet(recording_path);
    std::vector<MarkerEvent> markers;
    for (const format::MarkerRecord& m : maps.markers) markers.push_back({m.time_ns, m.thread, m.kind, maps.string(m.name)});
    std::stable_sort(markers.begin(), markers.end(), [](auto& a, auto& b) { return a.time_ns < b.time_ns; });
    selection.snapshot = resolveSnapshot(request.snapshot, markers, loadSavedSnapshots(recording_path), maps.end_ns);
    selection.intervals = intersect(selection.snapshot->intervals, selection.intervals);
    selection.filters = selection.snapshot->filters;
    // Fail early, before reading events, naming where a bad saved filter came from.
    for (const std::string& f : selection.filters) {
      try {
        parseWhere(f);
      } catch (const WhereError& e) {
        throw SnapshotError("snapshot '" + request.snapshot + "' has a bad saved filter: " + e.what());
      }
    }
  }
  if (!request.where.empty()) {
    parseWhere(request.where);
    selection.filters.push_back(request.where);
  }
  return selection;
}

EventPredicate selectionPredicate(const Selection& selection, const Recording& recording) {
  // Every filter and the resource name's selections as ONE conjunction, compiled once: the
  // compiler groups its terms by what they depend on (where_filter.h).
  auto all = std::make_unique<WhereNode>();
  all->kind = WhereNode::Kind::And;
  for (const std::string& f : selection.filters) all->children.push_back(parseWhere(f));
  if (auto resource = selection.resource.filter()) all->children.push_back(std::move(resource));
  EventPredicate filter;
  if (!all->children.empty()) filter = compileWhere(*all, recording);
  if (!selection.fragmented()) return filter;
  return [intervals = selection.intervals, filter = std::move(filter)](const Event& s) {
    bool inside = false;
    for (const TimeWindow& w : intervals) inside = inside || w.contains(s.time_ns);
    return inside && (!filter || filter(s));
  };
}

std::vector<std::string> unmatchedMethodPatterns(const Selection& selection, const Recording& recording) {
  std::vector<std::unique_ptr<WhereNode>> parts;
  for (const std::string& f : selection.filters) parts.push_back(parseWhere(f));
  if (auto resource = selection.resource.filter()) parts.push_back(std::move(resource));
  std::vector<std::string> unmatched;
  for (const auto& part : parts)
    for (std::string& pattern : unmatchedMethodPatterns(*part, recording))
      if (std::find(unmatched.begin(), unmatched.end(), pattern) == unmatched.end()) unmatched.push_back(std::move(pattern));
  return unmatched;
}

}  // namespace stackscope::analysis

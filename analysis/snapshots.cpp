#include "analysis/snapshots.h"

#include <algorithm>

#include <set>

#include "common/duration.h"

namespace stackscope::analysis {

namespace {

std::string describeWindow(const TimeWindow& w) {
  return formatDuration(w.from_ns) + ".." + (w.to_ns == TimeWindow::kOpen ? std::string("end") : formatDuration(w.to_ns));
}

std::string available(const std::vector<MarkerEvent>& markers, const std::vector<SavedSnapshot>& saved) {
  std::set<std::string> names;
  for (const SavedSnapshot& s : saved) names.insert(s.name);
  for (const MarkerEvent& m : markers) names.insert(m.kind == format::MarkerKind::Point ? m.name + " (marker)" : m.name);
  if (names.empty()) return "the recording has no markers and no saved snapshots";
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return "known: " + list;
}

std::vector<TimeWindow> normalize(std::vector<TimeWindow> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](auto& a, auto& b) { return a.from_ns < b.from_ns; });
  std::vector<TimeWindow> out;
  for (const TimeWindow& w : intervals) {
    if (w.to_ns <= w.from_ns) continue;
    if (!out.empty() && w.from_ns <= out.back().to_ns) out.back().to_ns = std::max(out.back().to_ns, w.to_ns);
    else out.push_back(w);
  }
  return out;
}

// Between point marker A and the next point marker B after it (every such span).
std::vector<TimeWindow> spanIntervals(const std::vector<MarkerEvent>& markers, const std::string& a, const std::string& b) {
  std::vector<TimeWindow> out;
  bool open = false;
  int64_t opened_at = 0;
  for (const MarkerEvent& m : markers) {
    if (m.kind != format::MarkerKind::Point) continue;
    if (open && m.name == b) {
      out.push_back({opened_at, m.time_ns});
      open = false;
    } else if (!open && m.name == a) {
      open = true;
      opened_at = m.time_ns;
    }
  }
  return out;
}

class Resolver {
 public:
  Resolver(const std::vector<MarkerEvent>& markers, const std::vector<SavedSnapshot>& saved, int64_t end_ns)
      : markers_(markers), saved_(saved), end_ns_(end_ns) {}

  Snapshot resolve(const std::string& name) {
    if (std::find(path_.begin(), path_.end(), name) != path_.end())
      throw SnapshotError("snapshot '" + name + "' is its own ancestor (parents: " + joined() + ")");
    path_.push_back(name);
    Snapshot result = resolveOnce(name);
    path_.pop_back();
    return result;
  }

 private:
  Snapshot resolveOnce(const std::string& name) {
    for (const SavedSnapshot& s : saved_) {
      if (s.name != name) continue;
      Snapshot snap{name, normalize({{s.from_ns, s.to_ns}}), {}, "saved: " + describeWindow({s.from_ns, s.to_ns})};
      if (!s.where.empty()) {
        snap.filters.push_back(s.where);
        snap.definition += " where " + s.where;
      }
      if (!s.parent.empty()) {
        Snapshot parent = resolve(s.parent);
        snap.intervals = intersect(snap.intervals, parent.intervals);
        snap.filters.insert(snap.filters.begin(), parent.filters.begin(), parent.filters.end());
        snap.definition += " inside " + s.parent;
      }
      return snap;
    }
    if (auto pairs = markerIntervals(markers_, name, end_ns_); !pairs.empty())
      return {name, normalize(pairs), {}, "begin/end markers '" + name + "' (" + std::to_string(pairs.size()) + " interval(s))"};
    if (const size_t dots = name.find(".."); dots != std::string::npos) {
      const std::string a = name.substr(0, dots), b = name.substr(dots + 2);
      auto spans = spanIntervals(markers_, a, b);
      if (!spans.empty()) return {name, normalize(spans), {}, "from marker '" + a + "' to marker '" + b + "'"};
      throw SnapshotError("no point marker '" + a + "' followed by a point marker '" + b + "'; " + available(markers_, saved_));
    }
    throw SnapshotError("unknown snapshot '" + name + "'; " + available(markers_, saved_));
  }

  std::string joined() const {
    std::string out;
    for (const std::string& p : path_) out += (out.empty() ? "" : " -> ") + p;
    return out;
  }

  const std::vector<MarkerEvent>& markers_;
  const std::vector<SavedSnapshot>& saved_;
  int64_t end_ns_;
  std::vector<std::string> path_;
};

}  // namespace

TimeWindow Snapshot::hull() const {
  if (intervals.empty()) return {0, 0};
  return {intervals.front().from_ns, intervals.back().to_ns};
}

bool Snapshot::contains(int64_t time_ns) const {
  // Intervals are few (markers), so a linear scan beats anything cleverer.
  for (const TimeWindow& w : intervals)
    if (w.contains(time_ns)) return true;
  return false;
}

std::vector<TimeWindow> markerIntervals(const std::vector<MarkerEvent>& markers, const std::string& name, int64_t end_ns) {
  std::vector<TimeWindow> out;
  std::vector<int64_t> open;  // nested begins of the same name close innermost first
  for (const MarkerEvent& m : markers) {
    if (m.name != name) continue;
    if (m.kind == format::MarkerKind::Begin) {
      open.push_back(m.time_ns);
    } else if (m.kind == format::MarkerKind::End && !open.empty()) {
      out.push_back({open.back(), m.time_ns});
      open.pop_back();
    }
  }
  for (int64_t begin : open) out.push_back({begin, std::max(begin, end_ns) + 1});
  return out;
}

Snapshot resolveSnapshot(const std::string& name, const std::vector<MarkerEvent>& markers,
                         const std::vector<SavedSnapshot>& saved, int64_t end_ns) {
  return Resolver(markers, saved, end_ns).resolve(name);
}

std::vector<TimeWindow> intersect(const std::vector<TimeWindow>& a, const std::vector<TimeWindow>& b) {
  std::vector<TimeWindow> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t from = std::max(a[i].from_ns, b[j].from_ns);
    const int64_t to = std::min(a[i].to_ns, b[j].to_ns);
    if (from < to) out.push_back({from, to});
    (a[i].to_ns < b[j].to_ns) ? ++i : ++j;
  }
  return out;
}

}  // namespace stackscope::analysis

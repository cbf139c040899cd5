#include "analysis/snapshots.h"

#include <algorithm>

#include <set>
#include <unordered_map>

#include "common/duration.h"

namespace stackscope::analysis {

namespace {

std::string describeWindow(const TimeWindow& w) {
  return formatDuration(w.from_ns) + ".." + (w.to_ns == TimeWindow::kOpen ? std::string("end") : formatDuration(w.to_ns));
}

std::string describeIntervals(const std::vector<TimeWindow>& intervals) {
  constexpr size_t kShown = 3;  // a long union is summarised, not listed
  std::string out;
  for (size_t i = 0; i < intervals.size() && i < kShown; ++i) out += (i ? ", " : "") + describeWindow(intervals[i]);
  if (intervals.size() > kShown) out += " and " + std::to_string(intervals.size() - kShown) + " more";
  return out;
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

}  // namespace

class SnapshotResolution {
 public:
  SnapshotResolution(const std::vector<MarkerEvent>& markers, const std::vector<SavedSnapshot>& saved, int64_t end_ns)
      : markers_(markers), saved_(saved), end_ns_(end_ns) {
    // First definition of a name wins, as a linear search would; a map keeps resolving every
    // snapshot of a long list (the `snapshots` command) linear, not quadratic.
    for (size_t i = 0; i < saved_.size(); ++i) by_name_.emplace(saved_[i].name, i);
  }

  Snapshot resolve(const std::string& name) {
    if (std::find(path_.begin(), path_.end(), name) != path_.end())
      throw SnapshotError("snapshot '" + name + "' is its own ancestor (parents: " + joined() + ")");
    // Resolving recurses once per parent: a hostile chain of 30 000 must fail here, clearly.
    if (path_.size() >= kMaxSnapshotDepth)
      throw SnapshotError("snapshot '" + path_.front() + "' has more than " + std::to_string(kMaxSnapshotDepth) +
                          " levels of parents (a chain this deep is refused)");
    path_.push_back(name);
    // Popped on an error too: one resolution object serves many names (SnapshotResolver).
    struct Pop {
      std::vector<std::string>& path;
      ~Pop() { path.pop_back(); }
    } pop{path_};
    return resolveOnce(name);
  }

 private:
  Snapshot resolveOnce(const std::string& name) {
    if (const auto found = by_name_.find(name); found != by_name_.end()) {
      const SavedSnapshot& s = saved_[found->second];
      Snapshot snap{name, normalize({{s.from_ns, s.to_ns}}), {}, "saved: " + describeWindow({s.from_ns, s.to_ns}), {}};
      if (!s.where.empty()) {
        snap.filters.push_back(s.where);
        snap.definition += " where " + s.where;
      }
      if (hasPairs(name))
        snap.notes.push_back("saved snapshot '" + name + "' hides the begin/end markers of the same name");
      if (!s.parent.empty()) {
        Snapshot parent = resolve(s.parent);
        snap.notes.insert(snap.notes.begin(), parent.notes.begin(), parent.notes.end());
        snap.intervals = intersect(snap.intervals, parent.intervals);
        if (snap.intervals.empty() && !parent.intervals.empty())
          snap.notes.push_back("snapshot '" + name + "' selects nothing: its interval " + describeWindow({s.from_ns, s.to_ns}) +
                               " does not meet its parent '" + s.parent + "' (" + describeIntervals(parent.intervals) + ")");
        snap.filters.insert(snap.filters.begin(), parent.filters.begin(), parent.filters.end());
        snap.definition += " inside " + s.parent;
      }
      return snap;
    }
    if (auto pairs = markerIntervals(markers_, name, end_ns_); !pairs.empty() || hasEnds(name)) {
      // Only ends without a begin: an empty snapshot, with the note saying why.
      Snapshot snap{name, normalize(pairs), {}, "begin/end markers '" + name + "' (" + std::to_string(pairs.size()) + " interval(s))", {}};
      snap.notes = markerNotes(markers_, name);
      return snap;
    }
    if (const size_t dots = name.find(".."); dots != std::string::npos) {
      const std::string a = name.substr(0, dots), b = name.substr(dots + 2);
      auto spans = spanIntervals(markers_, a, b);
      if (!spans.empty()) return {name, normalize(spans), {}, "from marker '" + a + "' to marker '" + b + "'", {}};
      throw SnapshotError("no point marker '" + a + "' followed by a point marker '" + b + "'; " + available(markers_, saved_));
    }
    throw SnapshotError("unknown snapshot '" + name + "'; " + available(markers_, saved_));
  }

  bool hasEnds(const std::string& name) const {
    return std::any_of(markers_.begin(), markers_.end(),
                       [&](const MarkerEvent& m) { return m.kind == format::MarkerKind::End && m.name == name; });
  }

  bool hasPairs(const std::string& name) const {
    return std::any_of(markers_.begin(), markers_.end(),
                       [&](const MarkerEvent& m) { return m.kind == format::MarkerKind::Begin && m.name == name; });
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
  std::unordered_map<std::string, size_t> by_name_;
};


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

std::vector<std::string> markerNotes(const std::vector<MarkerEvent>& markers, const std::string& name) {
  std::vector<std::string> notes;
  std::vector<int64_t> open;  // as markerIntervals pairs them
  size_t orphan_ends = 0;
  int64_t first_orphan = 0;
  for (const MarkerEvent& m : markers) {
    if (m.name != name) continue;
    if (m.kind == format::MarkerKind::Begin) {
      open.push_back(m.time_ns);
    } else if (m.kind == format::MarkerKind::End) {
      if (!open.empty()) open.pop_back();
      else if (orphan_ends++ == 0) first_orphan = m.time_ns;
    }
  }
  if (!open.empty())
    notes.push_back(std::to_string(open.size()) + " begin marker(s) '" + name + "' never ended (the first at " +
                    formatDuration(open.front()) + "); each runs to the end of the recording");
  if (orphan_ends)
    notes.push_back(std::to_string(orphan_ends) + " end marker(s) '" + name + "' had no begin (the first at " +
                    formatDuration(first_orphan) + ") and were ignored");
  return notes;
}

Snapshot resolveSnapshot(const std::string& name, const std::vector<MarkerEvent>& markers,
                         const std::vector<SavedSnapshot>& saved, int64_t end_ns) {
  return SnapshotResolution(markers, saved, end_ns).resolve(name);
}

SnapshotResolver::SnapshotResolver(const std::vector<MarkerEvent>& markers, const std::vector<SavedSnapshot>& saved,
                                   int64_t end_ns)
    : resolver_(std::make_unique<SnapshotResolution>(markers, saved, end_ns)) {}

SnapshotResolver::~SnapshotResolver() = default;

Snapshot SnapshotResolver::resolve(const std::string& name) { return resolver_->resolve(name); }

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

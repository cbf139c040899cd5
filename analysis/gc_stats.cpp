#include "analysis/gc_stats.h"

#include <algorithm>
#include <map>

namespace stackscope::analysis {

void GcPauseSum::add(const GcPause& pause) {
  ++count;
  total_ns += pause.duration_ns;
  longest_ns = std::max(longest_ns, pause.duration_ns);
}

bool selectsTime(const Selection& selection, int64_t time_ns) {
  return std::any_of(selection.intervals.begin(), selection.intervals.end(),
                     [&](const TimeWindow& w) { return w.contains(time_ns); });
}

GcStats computeGcStats(const Recording& recording, const Selection& selection) {
  GcStats stats;
  std::map<uint32_t, CollectorStats> by_collector;  // by string id: one name, one entry
  std::map<uint32_t, std::map<uint32_t, uint64_t>> causes;
  for (const GcPause& pause : recording.gcs) {
    if (!selectsTime(selection, pause.start_ns)) continue;
    stats.all.add(pause);
    CollectorStats& c = by_collector[pause.collector];
    if (c.pauses.count == 0) {
      c.collector = recording.string(pause.collector);
      c.first_ns = pause.start_ns;
    }
    if (c.pauses.count == 0 || pause.duration_ns > c.pauses.longest_ns) c.longest_at_ns = pause.start_ns;
    c.pauses.add(pause);
    c.last_ns = std::max(c.last_ns, pause.start_ns);
    ++causes[pause.collector][pause.cause];
  }
  for (auto& [id, c] : by_collector) {
    for (const auto& [cause, count] : causes[id]) c.causes.emplace_back(recording.string(cause), count);
    std::stable_sort(c.causes.begin(), c.causes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    stats.collectors.push_back(std::move(c));
  }
  std::stable_sort(stats.collectors.begin(), stats.collectors.end(), [](const CollectorStats& a, const CollectorStats& b) {
    return a.pauses.total_ns > b.pauses.total_ns;
  });
  return stats;
}

}  // namespace stackscope::analysis

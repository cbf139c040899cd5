#include "analysis/gc_stats.h"

namespace stackscope::analysis {

GcStats computeGcStats(const Recording& recording, EventKind kind, const EventPredicate& keep) {
  GcStats stats;
  if (kind != EventKind::Gc) return stats;
  const GroupStats collectors = computeGroupStats(recording, GroupBy::Collector, {EventKind::Gc, findMetric(kind, "time"), keep});
  const MetricInfo* count = findMetric(kind, "count");
  for (const GroupStat& collector : collectors.groups) {
    // Its causes: the same grouping, narrowed to its events (collectors are few).
    const EventPredicate mine = [&](const Event& e) {
      const uint32_t id = recording.label(e, Label::Collector);
      return (collector.unset ? id == 0 : id != 0 && recording.string(id) == collector.name) && (!keep || keep(e));
    };
    stats.collectors.push_back({collector, computeGroupStats(recording, GroupBy::Cause, {EventKind::Gc, count, mine}).groups});
    stats.all.merge(collector);
  }
  return stats;
}

}  // namespace stackscope::analysis

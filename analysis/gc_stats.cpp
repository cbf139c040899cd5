#include "analysis/gc_stats.h"

#include <algorithm>

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

std::optional<CollectionCount> collectionsInWindow(const Recording& recording) {
  const std::vector<EventKind> kinds = recording.eventKinds();
  if (std::find(kinds.begin(), kinds.end(), EventKind::Gc) != kinds.end()) {
    const auto collections = std::count_if(recording.events.begin(), recording.events.end(),
                                           [](const Event& e) { return e.kind == EventKind::Gc; });
    return CollectionCount{static_cast<uint64_t>(collections), false, "gc trace"};
  }
  const bool freed = std::any_of(recording.freed_ns.begin(), recording.freed_ns.end(),
                                 [&](int64_t t) { return t != Recording::kNotFreed && recording.window.contains(t); });
  if (recording.statuses.empty()) {
    if (freed) return CollectionCount{1, true, "freed objects"};
    return std::nullopt;
  }
  const uint64_t first = recording.statuses.front().gc_count;
  const uint64_t last = recording.statuses.back().gc_count;
  const uint64_t counted = last > first ? last - first : 0;
  return CollectionCount{std::max<uint64_t>(counted, freed ? 1 : 0), true, "status reports"};
}

}  // namespace stackscope::analysis

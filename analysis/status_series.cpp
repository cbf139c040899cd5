#include "analysis/status_series.h"

#include <algorithm>

namespace stackscope::analysis {

std::vector<StatusRow> statusSeries(const Recording& recording, const Selection& selection, const EventPredicate& keep) {
  std::vector<StatusRow> rows;
  for (const format::StatusRecord& s : recording.statuses) {
    const bool inside = std::any_of(selection.intervals.begin(), selection.intervals.end(),
                                    [&](const TimeWindow& w) { return w.contains(s.time_ns); });
    if (!inside) continue;
    StatusRow row;
    row.time_ns = s.time_ns;
    row.process_cpu_pct_of_machine = s.cpu_load_permille / 10.0;
    if (s.cpus > 0) {
      row.cpus = s.cpus;
      row.process_cpu_cores = s.cpu_load_permille / 1000.0 * s.cpus;
    }
    if (s.machine_cpu_permille_plus1 > 0) row.machine_cpu_pct = (s.machine_cpu_permille_plus1 - 1) / 10.0;
    row.gc_count = s.gc_count;
    row.gc_time_ns = s.gc_time_ns;
    row.heap_used = s.heap_used;
    row.heap_committed = s.heap_committed;
    row.live_threads = s.live_threads;
    rows.push_back(row);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const StatusRow& a, const StatusRow& b) { return a.time_ns < b.time_ns; });
  const std::vector<EventKind> kinds = recording.eventKinds();
  if (std::find(kinds.begin(), kinds.end(), EventKind::Gc) == kinds.end()) return rows;
  // The pauses on the timeline: events come in time order, as the rows do.
  for (StatusRow& row : rows) row.gc_pauses = EventAggregate{};
  size_t row = 0;
  forEachEvent(recording, {EventKind::Gc, findMetric(EventKind::Gc, "time"), keep}, [&](const Event& e, uint64_t value) {
    while (row < rows.size() && rows[row].time_ns < e.time_ns) ++row;
    if (row < rows.size()) rows[row].gc_pauses->add(e, value);
  });
  return rows;
}

}  // namespace stackscope::analysis

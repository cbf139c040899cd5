#include "analysis/timeline.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/names.h"
#include "analysis/thread_stats.h"

namespace stackscope::analysis {

int64_t timelineBinWidth(int64_t from_ns, int64_t to_ns, size_t max_bins) {
  const int64_t span = std::max<int64_t>(to_ns - from_ns, 1);
  const auto bins = static_cast<int64_t>(std::max<size_t>(max_bins, 1));
  for (int64_t power = 1;; power *= 10) {
    for (int64_t step : {1, 2, 5}) {
      const int64_t width = step * power;
      // Bins start at multiples of the width, so one more may be needed for the same span.
      if ((to_ns - 1) / width - from_ns / width + 1 <= bins || width >= span) return width;
    }
  }
}

Timeline buildTimeline(const Recording& recording, const EventScope& scope, TimelineGrouping grouping, int64_t from_ns,
                       int64_t to_ns, size_t max_bins, size_t max_series) {
  Timeline timeline;
  timeline.bin_ns = timelineBinWidth(from_ns, to_ns, max_bins);
  timeline.from_ns = from_ns / timeline.bin_ns * timeline.bin_ns;
  timeline.bins = to_ns > from_ns ? static_cast<size_t>((to_ns - 1 - timeline.from_ns) / timeline.bin_ns + 1) : 0;
  // A row per group as met: a state index or a thread id.
  std::unordered_map<uint32_t, size_t> row_of;
  std::vector<uint32_t> keys;
  std::vector<TimelineSeries> rows;
  timeline.totals = forEachEvent(recording, scope, [&](const Event& e, uint64_t value) {
    if (e.time_ns < from_ns || e.time_ns >= to_ns) return;
    const uint32_t key = grouping == TimelineGrouping::State ? static_cast<uint32_t>(stateIndex(e)) : e.thread;
    auto [it, added] = row_of.emplace(key, rows.size());
    if (added) {
      keys.push_back(key);
      rows.push_back({grouping == TimelineGrouping::State ? format::threadStateName(static_cast<format::ThreadState>(key))
                                                          : threadName(recording, key),
                      std::vector<uint64_t>(timeline.bins), 0});
    }
    TimelineSeries& row = rows[it->second];
    row.values[static_cast<size_t>((e.time_ns - timeline.from_ns) / timeline.bin_ns)] += value;
    row.total += value;
  });
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return rows[a].total != rows[b].total ? rows[a].total > rows[b].total : keys[a] < keys[b];
  });
  const size_t limit = std::max<size_t>(max_series, 2);
  const size_t kept = rows.size() > limit ? limit - 1 : rows.size();
  for (size_t i = 0; i < order.size(); ++i) {
    TimelineSeries& row = rows[order[i]];
    if (i < kept) {
      timeline.series.push_back(std::move(row));
      continue;
    }
    if (i == kept) timeline.series.push_back({"other", std::vector<uint64_t>(timeline.bins), 0});
    TimelineSeries& other = timeline.series.back();
    for (size_t b = 0; b < timeline.bins; ++b) other.values[b] += row.values[b];
    other.total += row.total;
  }
  return timeline;
}

}  // namespace stackscope::analysis

// The events of a scope over time: their value per time bin, split by thread state or by
// thread, the data of the timeline picture (export/timeline_svg.h) beside the status reports
// (status_series.h), the collections, markers and snapshots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

enum class TimelineGrouping : uint8_t { State, Thread };

struct TimelineSeries {
  std::string name;             // a state ("running") or a thread's name
  std::vector<uint64_t> values;  // in the scope's metric, one per bin
  uint64_t total = 0;
};

struct Timeline {
  int64_t from_ns = 0;  // the first bin starts here, a multiple of bin_ns
  int64_t bin_ns = 0;
  size_t bins = 0;
  // The groups with events, largest total first; beyond `max_series` the rest are summed into
  // a last series named "other".
  std::vector<TimelineSeries> series;
  ViewTotals totals;
};

// A round bin width (1, 2 or 5 times a power of ten ns) that cuts [from, to) in at most
// `max_bins` bins.
int64_t timelineBinWidth(int64_t from_ns, int64_t to_ns, size_t max_bins);

// The scope's events in [from, to) in bins of timelineBinWidth(from, to, max_bins).
Timeline buildTimeline(const Recording& recording, const EventScope& scope, TimelineGrouping grouping, int64_t from_ns,
                       int64_t to_ns, size_t max_bins, size_t max_series);

}  // namespace stackscope::analysis

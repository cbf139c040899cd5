// The class histograms' views: `histogram`, the objects in the heap per class at the last
// histogram of the selection, and `histogram-growth`, per class the difference between the
// first and the last histogram of the selection (what grew between those two moments).
// Both are one pass over the events of kind histogram that the scope keeps (an event per class
// per histogram, its stack the class's frame), so --from/--to, snapshots and --where choose the
// histograms as they choose any events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct ClassGrowth {
  std::string class_name;
  uint64_t instances_from = 0;  // at the first histogram (growth only)
  uint64_t bytes_from = 0;
  uint64_t instances = 0;       // at the last histogram
  uint64_t bytes = 0;
  int64_t instancesGrowth() const { return static_cast<int64_t>(instances) - static_cast<int64_t>(instances_from); }
  int64_t bytesGrowth() const { return static_cast<int64_t>(bytes) - static_cast<int64_t>(bytes_from); }
};

struct HistogramStats {
  std::vector<HistogramPoint> points;  // the histograms of the selection, in time order
  HistogramPoint from;  // the first (growth; else the last) and the last histogram of the selection
  HistogramPoint to;
  // histogram: most bytes first; growth: most bytes grown first (shrinking classes last).
  std::vector<ClassGrowth> classes;
  ClassGrowth total;  // every class summed
};

// `scope.kind` is EventKind::Histogram. `growth`: compare the first and the last histogram;
// otherwise only the last one counts (instances_from and bytes_from stay 0).
HistogramStats computeHistogramStats(const Recording& recording, const EventScope& scope, bool growth);

}  // namespace stackscope::analysis

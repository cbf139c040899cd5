// The gc trace's collections by collector: what `report --view gc` lists. Collections are
// process-wide, like status reports, so only time narrows them (a snapshot's intervals,
// --from/--to), never a thread, a stack or an annotation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/selection.h"

namespace stackscope::analysis {

// Collections summed: how many, their time (the pauses, for stop-the-world collectors) and
// the longest.
struct GcPauseSum {
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t longest_ns = 0;
  void add(const GcPause& pause);
};

struct CollectorStats {
  std::string collector;  // HotSpot's name, "" when the recording does not say
  GcPauseSum pauses;
  int64_t longest_at_ns = 0;  // start of the longest
  int64_t first_ns = 0;       // start of the first and of the last
  int64_t last_ns = 0;
  std::vector<std::pair<std::string, uint64_t>> causes;  // cause ("" unknown) and count, most frequent first
};

struct GcStats {
  GcPauseSum all;
  std::vector<CollectorStats> collectors;  // most total time first
};

// Whether a collection that started at `time_ns` lies in the selection.
bool selectsTime(const Selection& selection, int64_t time_ns);

GcStats computeGcStats(const Recording& recording, const Selection& selection);

}  // namespace stackscope::analysis

// The thread statistic: the metric's value per thread and, within each thread, per thread
// state (in wall mode the state tells running from blocked, waiting, sleeping or native time).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

using StateCounts = std::array<uint64_t, format::kThreadStateCount>;  // indexed by ThreadState

struct ThreadStat {
  uint32_t thread = 0;
  uint64_t value = 0;
  StateCounts states{};
};

struct ThreadStats {
  ViewTotals totals;       // of the view
  StateCounts states{};    // over all threads
  std::vector<ThreadStat> threads;  // threads with events: value desc, then name, then id
};

ThreadStats computeThreadStats(const Recording& recording, const EventScope& scope);

// The state an event counts under: a state this reader does not know (a newer writer's) is unknown.
inline size_t stateIndex(const Event& event) {
  const auto state = static_cast<size_t>(event.state);
  return state < format::kThreadStateCount ? state : 0;
}

}  // namespace stackscope::analysis

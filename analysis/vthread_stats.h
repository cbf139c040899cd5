// The virtual-thread statistic (JDK 21+ recordings): how many virtual threads ran, on how
// many carriers, in which states, and their hottest stacks, in the metric's value. Events of
// virtual threads are recognised by their thread record's flag; the carriers come from the
// samples (load.h).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/thread_stats.h"
#include "analysis/view.h"

namespace stackscope::analysis {

struct VirtualStack {
  uint32_t stack = 0;     // stack id, frames innermost first: the first of those with its methods
  uint64_t value = 0;
  uint64_t threads = 0;   // virtual threads that had this stack
};

struct VirtualThreadStats {
  uint64_t value = 0;        // of virtual threads' events in the view
  ViewTotals totals;         // of every thread's: value is the base of the percentages
  uint64_t threads = 0;      // virtual threads with events in the view
  uint64_t carriers = 0;     // distinct platform threads those ran on
  StateCounts states{};
  std::vector<VirtualStack> stacks;  // hottest first (value desc, then stack id)
};

VirtualThreadStats computeVirtualThreadStats(const Recording& recording, const EventScope& scope);

}  // namespace stackscope::analysis

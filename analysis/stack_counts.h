// The metric's value per distinct stack trace: the first step of every stack-based statistic.
// Real workloads have far fewer distinct stacks than events, so a statistic that expands
// each distinct stack once, weighted by its value, does per-event work of one array add.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct StackValues {
  std::vector<uint64_t> by_stack;  // indexed by stack id: the metric's value summed
  std::vector<uint64_t> samples_by_stack;  // indexed by stack id: the events' weight summed
  ViewTotals totals;               // of the view, including events without frames
};

// Summed on several threads, each over its own part of the events, when the scope has no
// predicate (predicates cache their answers per id and are not safe from two threads) and
// the events are many: `threads` 0 lets the engine choose, a number forces it (tests).
StackValues valuesByStack(const Recording& recording, const EventScope& scope, size_t threads = 0);

}  // namespace stackscope::analysis

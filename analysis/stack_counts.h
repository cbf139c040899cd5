// Samples counted per distinct stack trace: the first step of every stack-based statistic.
// Real workloads have far fewer distinct stacks than samples, so a statistic that expands
// each distinct stack once, weighted by its count, does per-sample work of one array add.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct StackCounts {
  std::vector<uint64_t> by_stack;  // indexed by stack id; sample weights summed
  uint64_t total = 0;              // samples in the view, including those without frames
};

StackCounts countSamplesByStack(const Recording& recording, const SamplePredicate& keep = {});

}  // namespace stackscope::analysis

// The thread statistic: samples per thread and, within each thread, per thread state (in
// wall mode the state tells running from blocked, waiting, sleeping or native time).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

using StateCounts = std::array<uint64_t, format::kThreadStateCount>;  // indexed by ThreadState

struct ThreadStat {
  uint32_t thread = 0;
  uint64_t samples = 0;
  StateCounts states{};
};

struct ThreadStats {
  uint64_t samples = 0;    // in the view
  StateCounts states{};    // over all threads
  std::vector<ThreadStat> threads;  // threads with samples: samples desc, then name, then id
};

ThreadStats computeThreadStats(const Recording& recording, const SamplePredicate& keep = {});

}  // namespace stackscope::analysis

// The method statistic: per method, samples where it is the top frame (self) and samples
// where it is anywhere on the stack (total, counted once per sample even when the method
// recurses, so total never exceeds the view's samples).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct MethodStat {
  uint32_t method = 0;
  uint64_t self = 0;
  uint64_t total = 0;
};

struct MethodStats {
  uint64_t samples = 0;              // in the view: the base of the percentages
  std::vector<MethodStat> methods;   // methods seen in the view: self desc, total desc, name
};

MethodStats computeMethodStats(const Recording& recording, const SamplePredicate& keep = {});

}  // namespace stackscope::analysis

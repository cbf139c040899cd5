#include "analysis/stack_counts.h"

namespace stackscope::analysis {

StackCounts countSamplesByStack(const Recording& recording, const SamplePredicate& keep) {
  StackCounts counts;
  counts.by_stack.assign(recording.stacks.size(), 0);
  forEachSample(recording, keep, [&](const Sample& sample) {
    counts.by_stack[sample.stack] += sample.weight;
    counts.total += sample.weight;
  });
  return counts;
}

}  // namespace stackscope::analysis

// What a statistic runs over: the samples of a Recording that a predicate keeps. An empty
// predicate keeps every sample. Logical filters (--where) and nested snapshots are predicates,
// so every statistic stays one pass over the samples whatever narrows the view.
#pragma once

#include <cstdint>
#include <functional>

#include "analysis/recording.h"

namespace stackscope::analysis {

using SamplePredicate = std::function<bool(const Sample&)>;

// Share of the view's samples, in percent; an empty view has 0 everywhere.
inline double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// Calls fn(sample) for every sample the predicate keeps. The unfiltered case gets its own
// loop so the common report pays no indirect call per sample.
template <typename Fn>
void forEachSample(const Recording& recording, const SamplePredicate& keep, Fn&& fn) {
  if (!keep) {
    for (const Sample& sample : recording.samples) fn(sample);
    return;
  }
  for (const Sample& sample : recording.samples)
    if (keep(sample)) fn(sample);
}

}  // namespace stackscope::analysis

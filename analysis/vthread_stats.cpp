#include "analysis/vthread_stats.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace stackscope::analysis {

VirtualThreadStats computeVirtualThreadStats(const Recording& recording, const SamplePredicate& keep) {
  VirtualThreadStats stats;
  std::unordered_map<uint32_t, VirtualStack> by_stack;
  // (stack, thread) pairs seen, to count each thread once per stack.
  std::unordered_set<uint64_t> stack_threads;
  std::vector<bool> seen_thread(recording.threads.size(), false);
  forEachSample(recording, keep, [&](const Sample& sample) {
    stats.all_samples += sample.weight;
    if (!recording.threads[sample.thread].is_virtual) return;
    stats.samples += sample.weight;
    const auto state = static_cast<size_t>(sample.state) < stats.states.size() ? static_cast<size_t>(sample.state) : 0;
    stats.states[state] += sample.weight;
    seen_thread[sample.thread] = true;
    VirtualStack& hot = by_stack[sample.stack];
    hot.stack = sample.stack;
    hot.samples += sample.weight;
    if (stack_threads.insert((uint64_t{sample.stack} << 32) | sample.thread).second) ++hot.threads;
  });
  std::unordered_set<uint32_t> carriers;
  for (uint32_t id = 0; id < seen_thread.size(); ++id) {
    if (!seen_thread[id]) continue;
    ++stats.threads;
    carriers.insert(recording.threads[id].carriers.begin(), recording.threads[id].carriers.end());
  }
  stats.carriers = carriers.size();
  stats.stacks.reserve(by_stack.size());
  for (const auto& [id, hot] : by_stack) stats.stacks.push_back(hot);
  std::sort(stats.stacks.begin(), stats.stacks.end(), [](const VirtualStack& a, const VirtualStack& b) {
    return a.samples != b.samples ? a.samples > b.samples : a.stack < b.stack;
  });
  return stats;
}

}  // namespace stackscope::analysis

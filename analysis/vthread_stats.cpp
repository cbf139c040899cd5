#include "analysis/vthread_stats.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace stackscope::analysis {

VirtualThreadStats computeVirtualThreadStats(const Recording& recording, const EventScope& scope) {
  VirtualThreadStats stats;
  std::unordered_map<uint32_t, VirtualStack> by_stack;
  // (stack, thread) pairs seen, to count each thread once per stack.
  std::unordered_set<uint64_t> stack_threads;
  std::vector<bool> seen_thread(recording.threads.size(), false);
  stats.totals = forEachEvent(recording, scope, [&](const Event& event, uint64_t value) {
    if (!recording.threads[event.thread].is_virtual) return;
    stats.value += value;
    stats.states[stateIndex(event)] += value;
    seen_thread[event.thread] = true;
    VirtualStack& hot = by_stack[event.stack];
    hot.stack = event.stack;
    hot.value += value;
    if (stack_threads.insert((uint64_t{event.stack} << 32) | event.thread).second) ++hot.threads;
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
    return a.value != b.value ? a.value > b.value : a.stack < b.stack;
  });
  return stats;
}

}  // namespace stackscope::analysis

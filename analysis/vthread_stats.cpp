#include "analysis/vthread_stats.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace stackscope::analysis {

VirtualThreadStats computeVirtualThreadStats(const Recording& recording, const EventScope& scope) {
  VirtualThreadStats stats;
  // A row per sequence of methods, which is what the view shows: stacks that differ only in
  // a frame's line or kind (interpreted, compiled, inlined) are one row. Under load the JIT
  // compiles late, and a loop's samples split between its interpreted and compiled stacks,
  // which were rows reading the same (VirtualBurn at load 9: 2093 and 117 and more).
  std::map<std::vector<uint32_t>, uint32_t> stack_of_methods;
  std::unordered_map<uint32_t, uint32_t> row_stack;  // stack id -> the first one with its methods
  const auto rowStack = [&](uint32_t stack) {
    auto [row, added] = row_stack.try_emplace(stack, stack);
    if (added) {
      std::vector<uint32_t> methods;
      for (const format::Frame& frame : recording.stack(stack)) methods.push_back(frame.method);
      row->second = stack_of_methods.try_emplace(std::move(methods), stack).first->second;
    }
    return row->second;
  };
  std::unordered_map<uint32_t, VirtualStack> by_stack;
  // (stack, thread) pairs seen, to count each thread once per stack.
  std::unordered_set<uint64_t> stack_threads;
  std::vector<bool> seen_thread(recording.threads.size(), false);
  stats.totals = forEachEvent(recording, scope, [&](const Event& event, uint64_t value) {
    if (!recording.threads[event.thread].is_virtual) return;
    stats.value += value;
    stats.states[stateIndex(event)] += value;
    seen_thread[event.thread] = true;
    const uint32_t stack = rowStack(event.stack);
    VirtualStack& hot = by_stack[stack];
    hot.stack = stack;
    hot.value += value;
    if (stack_threads.insert((uint64_t{stack} << 32) | event.thread).second) ++hot.threads;
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

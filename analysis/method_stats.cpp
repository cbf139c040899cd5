#include "analysis/method_stats.h"

#include <algorithm>
#include <limits>

#include "analysis/names.h"
#include "analysis/stack_counts.h"

namespace stackscope::analysis {

MethodStats computeMethodStats(const Recording& recording, const EventScope& scope, bool lines) {
  const StackValues counts = valuesByStack(recording, scope);
  const MethodNames names(recording);
  const FrameKeys keys(recording, names, lines);
  std::vector<uint64_t> self(keys.size(), 0), total(keys.size(), 0);
  // last_stack[k] is the stack that last added to total[k]: a recursive method meets itself
  // again within the same stack and must not be counted twice.
  std::vector<uint32_t> last_stack(keys.size(), std::numeric_limits<uint32_t>::max());

  for (uint32_t id = 0; id < counts.by_stack.size(); ++id) {
    const uint64_t count = counts.by_stack[id];
    const auto frames = recording.stack(id);
    if (count == 0 || frames.empty()) continue;
    self[keys.of(frames.front())] += count;
    for (const format::Frame& frame : frames) {
      const uint32_t key = keys.of(frame);
      if (last_stack[key] == id) continue;
      last_stack[key] = id;
      total[key] += count;
    }
  }

  MethodStats stats;
  stats.totals = counts.totals;
  for (uint32_t k = 0; k < keys.size(); ++k)
    if (total[k] > 0) stats.methods.push_back({keys.method(k), keys.line(k), keys.kinds(k), self[k], total[k]});
  std::sort(stats.methods.begin(), stats.methods.end(), [&](const MethodStat& a, const MethodStat& b) {
    if (a.self != b.self) return a.self > b.self;
    if (a.total != b.total) return a.total > b.total;
    if (a.method != b.method && names[a.method].display != names[b.method].display)
      return names[a.method].display < names[b.method].display;
    if (a.method != b.method) return a.method < b.method;
    return a.line < b.line;
  });
  return stats;
}

}  // namespace stackscope::analysis

#include "analysis/method_stats.h"

#include <algorithm>
#include <limits>

#include "analysis/names.h"
#include "analysis/stack_counts.h"

namespace stackscope::analysis {

MethodStats computeMethodStats(const Recording& recording, const SamplePredicate& keep) {
  const StackCounts counts = countSamplesByStack(recording, keep);
  const size_t method_count = recording.methods.size();
  std::vector<uint64_t> self(method_count, 0), total(method_count, 0);
  // last_stack[m] is the stack that last added to total[m]: a recursive method meets itself
  // again within the same stack and must not be counted twice.
  std::vector<uint32_t> last_stack(method_count, std::numeric_limits<uint32_t>::max());

  for (uint32_t id = 0; id < counts.by_stack.size(); ++id) {
    const uint64_t count = counts.by_stack[id];
    const auto frames = recording.stack(id);
    if (count == 0 || frames.empty()) continue;
    self[frames.front().method] += count;
    for (const format::Frame& frame : frames) {
      if (last_stack[frame.method] == id) continue;
      last_stack[frame.method] = id;
      total[frame.method] += count;
    }
  }

  MethodStats stats;
  stats.samples = counts.total;
  for (uint32_t m = 0; m < method_count; ++m)
    if (total[m] > 0) stats.methods.push_back({m, self[m], total[m]});
  const std::vector<std::string> names = methodNames(recording);
  std::sort(stats.methods.begin(), stats.methods.end(), [&](const MethodStat& a, const MethodStat& b) {
    if (a.self != b.self) return a.self > b.self;
    if (a.total != b.total) return a.total > b.total;
    if (names[a.method] != names[b.method]) return names[a.method] < names[b.method];
    return a.method < b.method;
  });
  return stats;
}

}  // namespace stackscope::analysis

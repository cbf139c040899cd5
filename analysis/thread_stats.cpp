#include "analysis/thread_stats.h"

#include <algorithm>

#include "analysis/names.h"

namespace stackscope::analysis {

ThreadStats computeThreadStats(const Recording& recording, const EventScope& scope) {
  std::vector<ThreadStat> per_thread(recording.threads.size());
  ThreadStats stats;
  stats.totals = forEachEvent(recording, scope, [&](const Event& event, uint64_t value) {
    const size_t state = stateIndex(event);
    ThreadStat& stat = per_thread[event.thread];
    stat.value += value;
    stat.states[state] += value;
    stats.states[state] += value;
  });
  for (uint32_t id = 0; id < per_thread.size(); ++id) {
    if (per_thread[id].value == 0) continue;
    per_thread[id].thread = id;
    stats.threads.push_back(per_thread[id]);
  }
  std::vector<std::string> names(per_thread.size());
  for (const ThreadStat& stat : stats.threads) names[stat.thread] = threadName(recording, stat.thread);
  std::sort(stats.threads.begin(), stats.threads.end(), [&](const ThreadStat& a, const ThreadStat& b) {
    if (a.value != b.value) return a.value > b.value;
    if (names[a.thread] != names[b.thread]) return names[a.thread] < names[b.thread];
    return a.thread < b.thread;
  });
  return stats;
}

}  // namespace stackscope::analysis

#include "analysis/thread_stats.h"

#include <algorithm>

#include "analysis/names.h"

namespace stackscope::analysis {

ThreadStats computeThreadStats(const Recording& recording, const SamplePredicate& keep) {
  std::vector<ThreadStat> per_thread(recording.threads.size());
  ThreadStats stats;
  forEachSample(recording, keep, [&](const Sample& sample) {
    // A state this reader does not know (a newer writer's) counts as unknown.
    const auto state = static_cast<size_t>(sample.state) < stats.states.size() ? static_cast<size_t>(sample.state) : 0;
    ThreadStat& stat = per_thread[sample.thread];
    stat.samples += sample.weight;
    stat.states[state] += sample.weight;
    stats.samples += sample.weight;
    stats.states[state] += sample.weight;
  });
  for (uint32_t id = 0; id < per_thread.size(); ++id) {
    if (per_thread[id].samples == 0) continue;
    per_thread[id].thread = id;
    stats.threads.push_back(per_thread[id]);
  }
  std::vector<std::string> names(per_thread.size());
  for (const ThreadStat& stat : stats.threads) names[stat.thread] = threadName(recording, stat.thread);
  std::sort(stats.threads.begin(), stats.threads.end(), [&](const ThreadStat& a, const ThreadStat& b) {
    if (a.samples != b.samples) return a.samples > b.samples;
    if (names[a.thread] != names[b.thread]) return names[a.thread] < names[b.thread];
    return a.thread < b.thread;
  });
  return stats;
}

}  // namespace stackscope::analysis

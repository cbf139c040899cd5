#include "analysis/group_stats.h"

#include <algorithm>
#include <map>

namespace stackscope::analysis {

namespace {

// Counts per small integer key first (state or annotation id), names them once at the end:
// the per-sample work is one array add.
std::vector<uint64_t> countByKey(const Recording& recording, GroupBy by, const SamplePredicate& keep) {
  std::vector<uint64_t> counts(by == GroupBy::State ? format::kThreadStateCount : recording.annotations.size() + 1, 0);
  forEachSample(recording, keep, [&](const Sample& s) {
    const size_t key = by == GroupBy::State ? static_cast<size_t>(s.state) : s.annotation;
    if (key < counts.size()) counts[key] += s.weight;
  });
  return counts;
}

// The group of a key: (unset, value).
std::pair<bool, std::string> groupOf(const Recording& recording, GroupBy by, size_t key) {
  if (by == GroupBy::State) return {false, format::threadStateName(static_cast<format::ThreadState>(key))};
  if (key == 0 || key >= recording.annotations.size()) return {true, kNoValue};
  const uint32_t id = recording.annotations[key][static_cast<size_t>(by) - static_cast<size_t>(GroupBy::User)];
  if (id == 0) return {true, kNoValue};
  return {false, recording.string(id)};
}

}  // namespace

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const SamplePredicate& keep) {
  const std::vector<uint64_t> counts = countByKey(recording, by, keep);
  std::map<std::pair<bool, std::string>, uint64_t> by_group;  // several annotations share one user, say
  GroupStats stats;
  for (size_t key = 0; key < counts.size(); ++key) {
    if (counts[key] == 0) continue;
    by_group[groupOf(recording, by, key)] += counts[key];
    stats.samples += counts[key];
  }
  for (auto& [group, samples] : by_group) stats.groups.push_back({group.second, samples, group.first});
  std::stable_sort(stats.groups.begin(), stats.groups.end(), [](auto& a, auto& b) { return a.samples > b.samples; });
  return stats;
}

}  // namespace stackscope::analysis

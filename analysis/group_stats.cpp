#include "analysis/group_stats.h"

#include <algorithm>
#include <map>

namespace stackscope::analysis {

namespace {

size_t keyCount(const Recording& recording, GroupBy by) {
  if (by == GroupBy::State) return format::kThreadStateCount;
  if (by == GroupBy::Exception) return recording.stacks.size();
  return recording.annotations.size() + 1;
}

size_t keyOf(GroupBy by, const Event& e) {
  if (by == GroupBy::State) return static_cast<size_t>(e.state);
  if (by == GroupBy::Exception) return e.kind == EventKind::Exception ? e.stack : 0;
  return e.annotation;
}

// Values per small integer key first (state, stack or annotation id), named once at the end:
// the per-event work is one array add.
std::vector<uint64_t> valueByKey(const Recording& recording, GroupBy by, const EventScope& scope, ViewTotals& totals) {
  std::vector<uint64_t> values(keyCount(recording, by), 0);
  totals = forEachEvent(recording, scope, [&](const Event& e, uint64_t value) {
    const size_t key = keyOf(by, e);
    if (key < values.size()) values[key] += value;
  });
  return values;
}

// The group of a key: (unset, value).
std::pair<bool, std::string> groupOf(const Recording& recording, GroupBy by, size_t key) {
  if (by == GroupBy::State) return {false, format::threadStateName(static_cast<format::ThreadState>(key))};
  if (by == GroupBy::Exception) {
    const std::string_view thrown = recording.thrownClass(static_cast<uint32_t>(key));
    return thrown.empty() ? std::pair<bool, std::string>{true, kNoValue} : std::pair<bool, std::string>{false, std::string(thrown)};
  }
  if (key == 0 || key >= recording.annotations.size()) return {true, kNoValue};
  const uint32_t id = recording.annotations[key][static_cast<size_t>(by) - static_cast<size_t>(GroupBy::User)];
  if (id == 0) return {true, kNoValue};
  return {false, recording.string(id)};
}

}  // namespace

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const EventScope& scope) {
  GroupStats stats;
  const std::vector<uint64_t> values = valueByKey(recording, by, scope, stats.totals);
  std::map<std::pair<bool, std::string>, uint64_t> by_group;  // several annotations share one user, say
  for (size_t key = 0; key < values.size(); ++key)
    if (values[key] != 0) by_group[groupOf(recording, by, key)] += values[key];
  for (auto& [group, value] : by_group) stats.groups.push_back({group.second, value, group.first});
  std::stable_sort(stats.groups.begin(), stats.groups.end(), [](auto& a, auto& b) { return a.value > b.value; });
  return stats;
}

}  // namespace stackscope::analysis

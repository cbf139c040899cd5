#include "analysis/group_stats.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "common/duration.h"

namespace stackscope::analysis {

namespace {

bool byLabel(GroupBy by) { return by == GroupBy::Collector || by == GroupBy::Cause || by == GroupBy::Class; }

Label labelOf(GroupBy by) {
  return by == GroupBy::Collector ? Label::Collector : by == GroupBy::Cause ? Label::Cause : Label::ObjectClass;
}

constexpr size_t kAgeGroups = std::size(kAgeBounds) + 1;

size_t ageGroup(int64_t age_ns) {
  return static_cast<size_t>(std::upper_bound(std::begin(kAgeBounds), std::end(kAgeBounds), age_ns) - std::begin(kAgeBounds));
}

// "100ms-1s", "1h+": the age group's bounds.
std::string ageName(size_t group) {
  const std::string from = group == 0 ? "0s" : formatDuration(kAgeBounds[group - 1]);
  if (group + 1 == kAgeGroups) return from + "+";
  return from + "-" + formatDuration(kAgeBounds[group]);
}

size_t keyCount(const Recording& recording, GroupBy by) {
  if (by == GroupBy::State) return format::kThreadStateCount;
  if (by == GroupBy::Exception) return recording.stacks.size();
  if (byLabel(by)) return recording.strings.size() + 1;
  if (by == GroupBy::Age) return kAgeGroups;
  return recording.annotations.size() + 1;
}

size_t keyOf(const Recording& recording, GroupBy by, const Event& e) {
  if (by == GroupBy::State) return static_cast<size_t>(e.state);
  if (by == GroupBy::Exception) return e.kind == EventKind::Exception ? e.stack : 0;
  if (byLabel(by)) return recording.label(e, labelOf(by));
  if (by == GroupBy::Age) return ageGroup(recording.windowEndNs() - e.time_ns);
  return e.annotation;
}

// Aggregates per small integer key first (state, stack, annotation or string id), named once
// at the end: the per-event work is one array update.
std::vector<EventAggregate> byKey(const Recording& recording, GroupBy by, const EventScope& scope, ViewTotals& totals) {
  std::vector<EventAggregate> keys(keyCount(recording, by));
  totals = forEachEvent(recording, scope, [&](const Event& e, uint64_t value) {
    const size_t key = keyOf(recording, by, e);
    if (key < keys.size()) keys[key].add(e, value);
  });
  return keys;
}

// The group of a key: (unset, value).
std::pair<bool, std::string> groupOf(const Recording& recording, GroupBy by, size_t key) {
  const auto value = [](std::string_view name) {
    return name.empty() ? std::pair<bool, std::string>{true, kNoValue} : std::pair<bool, std::string>{false, std::string(name)};
  };
  if (by == GroupBy::State) return {false, format::threadStateName(static_cast<format::ThreadState>(key))};
  if (by == GroupBy::Age) return {false, ageName(key)};
  if (by == GroupBy::Exception) return value(recording.thrownClass(static_cast<uint32_t>(key)));
  if (byLabel(by)) return key == 0 ? value("") : std::pair<bool, std::string>{false, recording.string(static_cast<uint32_t>(key))};
  if (key == 0 || key >= recording.annotations.size()) return {true, kNoValue};
  const uint32_t id = recording.annotations[key][static_cast<size_t>(by) - static_cast<size_t>(GroupBy::User)];
  if (id == 0) return {true, kNoValue};
  return {false, recording.string(id)};
}

}  // namespace

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const EventScope& scope) {
  GroupStats stats;
  const std::vector<EventAggregate> keys = byKey(recording, by, scope, stats.totals);
  std::map<std::pair<bool, std::string>, EventAggregate> by_group;  // several annotations share one user, say
  for (size_t key = 0; key < keys.size(); ++key)
    if (keys[key].events != 0) by_group[groupOf(recording, by, key)].merge(keys[key]);
  for (auto& [group, sum] : by_group) {
    GroupStat stat;
    static_cast<EventAggregate&>(stat) = sum;
    stat.name = group.second;
    stat.unset = group.first;
    stats.groups.push_back(std::move(stat));
  }
  // Ages are a histogram: youngest first. Other groups: the largest first.
  if (by == GroupBy::Age) return stats;
  std::stable_sort(stats.groups.begin(), stats.groups.end(), [](auto& a, auto& b) { return a.value > b.value; });
  return stats;
}

}  // namespace stackscope::analysis

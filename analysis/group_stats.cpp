#include "analysis/group_stats.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "common/duration.h"
#include "analysis/names.h"

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

// Owners are keyed by their index in a table of the threads met, made as they come; the
// owner's stacks a look took are counted per key apart, few as they are.
class OwnerKeys {
 public:
  size_t keyOf(LockOwner owner) {
    if (owner.thread == 0) return 0;
    const auto [it, added] = index_.try_emplace(owner.thread, threads_.size());
    if (added) threads_.push_back(owner.thread);
    if (owner.stack != 0) ++looked_[{it->second, owner.stack}];
    return it->second;
  }
  uint32_t thread(size_t key) const { return threads_[key]; }
  // (key, owner's stack) -> events
  const std::map<std::pair<size_t, uint32_t>, uint64_t>& looked() const { return looked_; }

 private:
  std::map<uint32_t, size_t> index_;
  std::vector<uint32_t> threads_{0};  // key 0: unknown
  std::map<std::pair<size_t, uint32_t>, uint64_t> looked_;
};

// Where the owner held the lock: the innermost frame of its stack in the program's own code,
// past the JDK's frames it was in meanwhile (Thread.sleep, Object.wait, LockSupport.park…);
// the innermost frame when every frame is the JDK's.
std::string ownerMethod(const Recording& recording, uint32_t stack) {
  const auto frames = recording.stack(stack);
  if (frames.empty()) return "";
  const auto isJdk = [&](const format::Frame& frame) {
    if (frame.method >= recording.methods.size()) return false;
    const std::string& name = recording.string(recording.methods[frame.method].class_name);
    for (const char* prefix : {"java.", "javax.", "jdk.", "sun.", "com.sun."})
      if (name.rfind(prefix, 0) == 0) return true;
    return false;
  };
  const auto own = std::find_if_not(frames.begin(), frames.end(), isJdk);
  return methodName(recording, (own != frames.end() ? *own : frames.front()).method);
}

size_t keyCount(const Recording& recording, GroupBy by) {
  if (by == GroupBy::State) return format::kThreadStateCount;
  if (by == GroupBy::Exception) return recording.stacks.size();
  if (byLabel(by)) return recording.strings.size() + 1;
  if (by == GroupBy::Age) return kAgeGroups;
  if (by == GroupBy::Owner) return 1;  // grows with the owners met
  return recording.annotations.size() + 1;
}

size_t keyOf(const Recording& recording, GroupBy by, const Event& e, OwnerKeys& owners) {
  if (by == GroupBy::State) return static_cast<size_t>(e.state);
  if (by == GroupBy::Exception) return e.kind == EventKind::Exception ? e.stack : 0;
  if (byLabel(by)) return recording.label(e, labelOf(by));
  if (by == GroupBy::Age) return ageGroup(recording.windowEndNs() - e.time_ns);
  if (by == GroupBy::Owner) return owners.keyOf(recording.lockOwner(e));
  return e.annotation;
}

// Aggregates per small integer key first (state, stack, annotation or string id), named once
// at the end: the per-event work is one array update.
std::vector<EventAggregate> byKey(const Recording& recording, GroupBy by, const EventScope& scope, ViewTotals& totals,
                                  OwnerKeys& owners) {
  std::vector<EventAggregate> keys(keyCount(recording, by));
  totals = forEachEvent(recording, scope, [&](const Event& e, uint64_t value) {
    const size_t key = keyOf(recording, by, e, owners);
    if (by == GroupBy::Owner && key >= keys.size()) keys.resize(key + 1);
    if (key < keys.size()) keys[key].add(e, value);
  });
  return keys;
}

// The group of a key: (unset, value).
std::pair<bool, std::string> groupOf(const Recording& recording, GroupBy by, size_t key, const OwnerKeys& owners) {
  const auto value = [](std::string_view name) {
    return name.empty() ? std::pair<bool, std::string>{true, kNoValue} : std::pair<bool, std::string>{false, std::string(name)};
  };
  if (by == GroupBy::State) return {false, format::threadStateName(static_cast<format::ThreadState>(key))};
  if (by == GroupBy::Age) return {false, ageName(key)};
  if (by == GroupBy::Exception) return value(recording.thrownClass(static_cast<uint32_t>(key)));
  if (byLabel(by)) return key == 0 ? value("") : std::pair<bool, std::string>{false, recording.string(static_cast<uint32_t>(key))};
  if (by == GroupBy::Owner) {
    if (key == 0) return value("");
    return {false, threadName(recording, owners.thread(key))};
  }
  if (key == 0 || key >= recording.annotations.size()) return {true, kNoValue};
  const uint32_t id = recording.annotations[key][static_cast<size_t>(by) - static_cast<size_t>(GroupBy::User)];
  if (id == 0) return {true, kNoValue};
  return {false, recording.string(id)};
}

// Owners: where looks saw each group's owner, by method, most events first.
void addHeldIn(const Recording& recording, const OwnerKeys& owners, std::map<std::pair<bool, std::string>, GroupStat>& groups) {
  std::map<std::pair<bool, std::string>, std::map<std::string, uint64_t>> methods;
  for (const auto& [key_stack, events] : owners.looked()) {
    const std::string method = ownerMethod(recording, key_stack.second);
    if (!method.empty()) methods[groupOf(recording, GroupBy::Owner, key_stack.first, owners)][method] += events;
  }
  for (auto& [group, by_method] : methods) {
    std::vector<HeldIn>& held_in = groups[group].held_in;
    for (const auto& [method, events] : by_method) held_in.push_back({method, events});
    std::stable_sort(held_in.begin(), held_in.end(), [](auto& a, auto& b) { return a.events > b.events; });
  }
}

}  // namespace

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const EventScope& scope) {
  GroupStats stats;
  OwnerKeys owners;
  const std::vector<EventAggregate> keys = byKey(recording, by, scope, stats.totals, owners);
  std::map<std::pair<bool, std::string>, GroupStat> by_group;  // several annotations share one user, say
  for (size_t key = 0; key < keys.size(); ++key)
    if (keys[key].events != 0) by_group[groupOf(recording, by, key, owners)].merge(keys[key]);
  if (by == GroupBy::Owner) addHeldIn(recording, owners, by_group);
  for (auto& [group, stat] : by_group) {
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

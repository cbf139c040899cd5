#include "analysis/recording.h"

#include <sys/mman.h>

#include <algorithm>

#include "analysis/parallel.h"

namespace stackscope::analysis {

void releasePagesInParallel(void* block, size_t bytes) noexcept {
  constexpr size_t kWorthThreads = size_t{64} << 20;
  constexpr uintptr_t kPage = 4096;
  if (bytes < 2 * kWorthThreads) return;  // before asking for the CPUs: most blocks are small
  const size_t parts = std::min<size_t>(usableCpus(), bytes / kWorthThreads);
  if (parts < 2) return;
  // Whole pages inside the block only: free() may still use the bytes around it.
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(block) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(block) + bytes) & ~(kPage - 1);
  const uintptr_t step = ((end - begin) / parts + kPage - 1) & ~(kPage - 1);
  try {
    runParts(parts, [&](size_t p) {
      const uintptr_t from = std::min(end, begin + p * step);
      const uintptr_t to = std::min(end, from + step);
      // Only a hint: where it fails, free() gives the pages back as before.
      if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    });
  } catch (...) {
    // No thread to be had: free() gives the pages back on this one.
  }
}

void StackSums::add(const StackSums& other) {
  const auto sum = [](std::vector<uint64_t>& into, const std::vector<uint64_t>& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (size_t s = 0; s < from.size(); ++s) into[s] += from[s];
  };
  events += other.events;
  sum(weight, other.weight);
  for (size_t column = 0; column < kAmountColumns; ++column) sum(amounts[column], other.amounts[column]);
}

std::vector<EventKind> Recording::eventKinds() const {
  std::vector<EventKind> kinds;
  const auto add = [&](EventKind kind) {
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
  };
  // The mode is one kind ("cpu") or, from a writer running several samplers, a comma list.
  for (size_t from = 0; has_info && from <= info.mode.size();) {
    const size_t comma = std::min(info.mode.find(',', from), info.mode.size());
    if (const auto kind = parseEventKind(std::string_view(info.mode).substr(from, comma - from))) add(*kind);
    from = comma + 1;
  }
  for (size_t k = 0; k < kEventKindCount; ++k)
    if (kinds_seen & (1u << k)) add(static_cast<EventKind>(k));
  if (kinds.empty()) kinds.push_back(EventKind::Cpu);  // no info, no event: what the agent writes by default
  return kinds;
}

const std::string& Recording::string(uint32_t id) const {
  static const std::string kEmpty;
  return id < strings.size() ? strings[id] : kEmpty;
}

std::span<const format::Frame> Recording::stack(uint32_t id) const {
  if (id >= stacks.size()) return {};
  return stacks[id];
}

std::string_view Recording::thrownClass(uint32_t id) const {
  const auto frames = stack(id);
  if (frames.empty() || frames.front().method >= methods.size()) return {};
  const MethodInfo& top = methods[frames.front().method];
  if (!top.defined || !string(top.class_name).empty()) return {};
  std::string_view name = string(top.method_name);
  constexpr std::string_view kUncaught = " (uncaught)";
  if (name.ends_with(kUncaught)) name.remove_suffix(kUncaught.size());
  return name;
}

namespace {

// The entry of `event` in `column` (empty, or parallel to `events`), T{} when it has none.
template <typename T>
T columnEntry(const EventTable& events, const std::vector<T>& column, const Event& event) {
  // Compared as integers: an event from elsewhere (a copy) is not ordered with `events`.
  const auto at = reinterpret_cast<uintptr_t>(&event), begin = reinterpret_cast<uintptr_t>(events.data());
  const size_t index = (at - begin) / sizeof(Event);
  return at >= begin && index < column.size() ? column[index] : T{};
}

}  // namespace

uint32_t Recording::label(const Event& event, Label label) const {
  return columnEntry(events, labels[static_cast<size_t>(label)], event);
}

LockOwner Recording::lockOwner(const Event& event) const { return columnEntry(events, lock_owners, event); }

uint64_t Recording::lostTotal() const {
  uint64_t total = 0;
  for (const auto& [reason, count] : lost) total += count;
  return total;
}

int64_t Recording::viewDurationNs() const {
  const int64_t from = std::max<int64_t>(window.from_ns, 0);
  const int64_t to = std::min(window.to_ns, end_ns);
  return to > from ? to - from : 0;
}

void Recording::dropEvents() {
  events.clear();
  for (std::vector<uint64_t>& column : amounts) column.clear();
  for (std::vector<uint32_t>& column : labels) column.clear();
  alloc_intervals.clear();
  freed_ns.clear();
  object_tags.clear();
  frees_unmatched.clear();
  lock_owners.clear();
  kinds_seen = 0;
  for (StackSums& sums : folded) sums = {};
  histograms.clear();
  statuses.clear();
  lost.clear();
  for (ThreadInfo& thread : threads) {
    thread.start_ns = ThreadInfo::kUnknownTime;
    thread.end_ns = ThreadInfo::kUnknownTime;
    thread.carriers.clear();
  }
  ended = false;
  end_ns = 0;
  warnings.clear();
  bytes_read = 0;
}

}  // namespace stackscope::analysis

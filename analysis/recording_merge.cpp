#include "analysis/recording_merge.h"

#include <algorithm>
#include <utility>

namespace stackscope::analysis {

namespace {

size_t mix(size_t h, uint64_t v) { return (h ^ v) * 1099511628211ull; }

uint32_t mapped(const std::vector<uint32_t>& ids, uint32_t id) { return id < ids.size() ? ids[id] : 0; }

// Makes two columns (each empty, or parallel to its events) both parallel, or leaves both empty.
template <typename Column, typename T>
void widen(Column& into, size_t into_events, Column& from, size_t from_events, const T& none) {
  if (into.empty() && from.empty()) return;
  if (into.empty()) into.assign(into_events, none);
  if (from.empty()) from.assign(from_events, none);
}

// Appends `from` to `into`, the entries of into[tail, …) and of `from` interleaved as `order`
// says (true: the next of `from`).
template <typename Column>
void interleave(Column& into, Column& from, size_t tail, const std::vector<bool>& order) {
  if (into.empty() && from.empty()) return;
  Column kept(into.begin() + static_cast<std::ptrdiff_t>(tail), into.end());
  into.resize(tail);
  into.reserve(tail + order.size());
  size_t i = 0, j = 0;
  for (const bool next_from : order) into.push_back(next_from ? from[j++] : kept[i++]);
}

}  // namespace

size_t RecordingMerger::FramesHash::operator()(const std::vector<format::Frame>& frames) const {
  size_t h = 1469598103934665603ull;
  for (const format::Frame& frame : frames) h = mix(mix(h, frame.method), static_cast<uint32_t>(frame.bci));
  return h;
}

size_t RecordingMerger::MethodKeyHash::operator()(const MethodKey& key) const {
  return mix(mix(mix(mix(1469598103934665603ull, key.class_name), key.method_name), key.signature), key.source_file);
}

RecordingMerger::RecordingMerger(Recording& first) : rec_(first) {
  if (rec_.strings.empty()) rec_.strings.resize(1);
  if (rec_.methods.empty()) rec_.methods.resize(1);
  if (rec_.stacks.empty()) rec_.stacks.resize(1);
  rec_.stack_defined.resize(rec_.stacks.size());
  for (uint32_t id = 1; id < rec_.strings.size(); ++id) strings_.try_emplace(rec_.strings[id], id);
  for (uint32_t id = 1; id < rec_.methods.size(); ++id) {
    const MethodInfo& m = rec_.methods[id];
    if (m.defined) methods_.try_emplace(MethodKey{m.class_name, m.method_name, m.signature, m.source_file}, id);
  }
  for (uint32_t id = 1; id < rec_.stacks.size(); ++id)
    if (rec_.stack_defined[id]) stacks_.try_emplace(rec_.stacks[id], id);
}

uint32_t RecordingMerger::stringId(const std::string& value) {
  const auto [it, added] = strings_.try_emplace(value, static_cast<uint32_t>(rec_.strings.size()));
  if (added) rec_.strings.push_back(value);
  return it->second;
}

uint32_t RecordingMerger::methodId(const MethodInfo& method) {
  const auto id = static_cast<uint32_t>(rec_.methods.size());
  // A method no part described stays apart: nothing says which other it would be.
  if (method.defined) {
    const auto [it, added] = methods_.try_emplace(
        MethodKey{method.class_name, method.method_name, method.signature, method.source_file}, id);
    if (!added) return it->second;
  }
  rec_.methods.push_back(method);
  return id;
}

uint32_t RecordingMerger::stackId(std::vector<format::Frame> frames, bool defined) {
  const auto id = static_cast<uint32_t>(rec_.stacks.size());
  if (defined) {
    const auto [it, added] = stacks_.try_emplace(frames, id);
    if (!added) return it->second;
  }
  rec_.stacks.push_back(std::move(frames));
  rec_.stack_defined.push_back(defined);
  return id;
}

void RecordingMerger::add(Recording&& part) {
  std::vector<uint32_t> strings(part.strings.size(), 0);
  for (uint32_t id = 1; id < part.strings.size(); ++id) strings[id] = stringId(part.strings[id]);
  std::vector<uint32_t> methods(part.methods.size(), 0);
  for (uint32_t id = 1; id < part.methods.size(); ++id) {
    MethodInfo& m = part.methods[id];
    for (uint32_t* field : {&m.class_name, &m.method_name, &m.signature, &m.source_file, &m.code_source})
      *field = mapped(strings, *field);
    methods[id] = methodId(m);
  }
  std::vector<uint32_t> stacks(part.stacks.size(), 0);
  for (uint32_t id = 1; id < part.stacks.size(); ++id) {
    std::vector<format::Frame>& frames = part.stacks[id];
    for (format::Frame& frame : frames) frame.method = mapped(methods, frame.method);
    stacks[id] = stackId(std::move(frames), id < part.stack_defined.size() && part.stack_defined[id]);
  }
  for (uint32_t id = 1; id < part.threads.size(); ++id) mergeThread(id, std::move(part.threads[id]), stacks);
  if (rec_.threads.empty() && !part.threads.empty()) rec_.threads.resize(1);
  for (uint32_t id = 1; id < part.annotations.size(); ++id) {
    if (id >= rec_.annotations.size()) rec_.annotations.resize(id + 1);
    Annotation& into = rec_.annotations[id];
    if (std::any_of(into.begin(), into.end(), [](uint32_t field) { return field != 0; })) continue;
    for (size_t field = 0; field < into.size(); ++field) into[field] = mapped(strings, part.annotations[id][field]);
  }
  for (format::MarkerRecord marker : part.markers) {
    marker.name = mapped(strings, marker.name);
    rec_.markers.push_back(marker);
  }
  appendEvents(part, stacks, strings);
  rec_.statuses.insert(rec_.statuses.end(), part.statuses.begin(), part.statuses.end());
  rec_.histograms.insert(rec_.histograms.end(), part.histograms.begin(), part.histograms.end());
  for (const auto& [reason, count] : part.lost) rec_.lost[reason] += count;
  for (uint64_t interval : part.alloc_intervals)
    if (!std::binary_search(rec_.alloc_intervals.begin(), rec_.alloc_intervals.end(), interval))
      rec_.alloc_intervals.insert(std::upper_bound(rec_.alloc_intervals.begin(), rec_.alloc_intervals.end(), interval), interval);
  rec_.kinds_seen |= part.kinds_seen;
  rec_.warnings.insert(rec_.warnings.end(), part.warnings.begin(), part.warnings.end());
  rec_.ended = part.ended;
  rec_.end_ns = std::max(rec_.end_ns, part.end_ns);
  rec_.file_size += part.file_size;
  rec_.bytes_read += part.bytes_read;
  if (!rec_.has_info && part.has_info) {
    rec_.has_info = true;
    rec_.info = part.info;
  }
}

// A thread that lives across a rotation is described in both files: the later file has its
// later name and its end, the earlier its start.
void RecordingMerger::mergeThread(uint32_t id, ThreadInfo&& thread, const std::vector<uint32_t>& stacks) {
  if (id >= rec_.threads.size()) rec_.threads.resize(id + 1);
  ThreadInfo& into = rec_.threads[id];
  thread.parent_stack = mapped(stacks, thread.parent_stack);
  const int64_t start_ns = into.start_ns != ThreadInfo::kUnknownTime ? into.start_ns : thread.start_ns;
  if (!into.defined) {
    const int64_t end_ns = thread.end_ns != ThreadInfo::kUnknownTime ? thread.end_ns : into.end_ns;
    into = std::move(thread);
    into.start_ns = start_ns;
    into.end_ns = end_ns;
    return;
  }
  into.start_ns = start_ns;
  if (thread.end_ns != ThreadInfo::kUnknownTime) into.end_ns = thread.end_ns;
  if (!thread.defined) return;
  for (const std::string& name : thread.names) into.takeName(name);
  for (uint32_t carrier : thread.carriers)
    if (into.carriers.size() < ThreadInfo::kMaxCarriers && std::find(into.carriers.begin(), into.carriers.end(), carrier) == into.carriers.end())
      into.carriers.push_back(carrier);
  if (into.parent == 0 && thread.parent != 0) {
    into.parent = thread.parent;
    into.parent_stack = thread.parent_stack;
    into.started_ns = thread.started_ns;
  }
}

void RecordingMerger::appendEvents(Recording& part, const std::vector<uint32_t>& stacks, const std::vector<uint32_t>& strings) {
  for (Event& event : part.events) event.stack = mapped(stacks, event.stack);
  for (std::vector<uint32_t>& column : part.labels)
    for (uint32_t& label : column) label = mapped(strings, label);
  for (LockOwner& owner : part.lock_owners) owner.stack = mapped(stacks, owner.stack);
  const size_t had = rec_.events.size(), added = part.events.size();
  for (size_t c = 0; c < rec_.amounts.size(); ++c) widen(rec_.amounts[c], had, part.amounts[c], added, uint64_t{0});
  for (size_t c = 0; c < rec_.labels.size(); ++c) widen(rec_.labels[c], had, part.labels[c], added, uint32_t{0});
  widen(rec_.lock_owners, had, part.lock_owners, added, LockOwner{});
  widen(rec_.freed_ns, had, part.freed_ns, added, Recording::kNotFreed);
  widen(rec_.object_tags, had, part.object_tags, added, uint64_t{0});
  later_frees_.insert(later_frees_.end(), part.frees_unmatched.begin(), part.frees_unmatched.end());
  if (added == 0) return;
  // The part's events follow every earlier event not later than its first; the few later
  // ones (usually none) are interleaved with it by time.
  const auto by_time = [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; };
  const size_t tail = static_cast<size_t>(
      std::upper_bound(rec_.events.begin(), rec_.events.end(), part.events.front(), by_time) - rec_.events.begin());
  std::vector<bool> order;
  order.reserve(had - tail + added);
  for (size_t i = tail, j = 0; i < had || j < added;) {
    const bool next_from_part = i == had || (j < added && by_time(part.events[j], rec_.events[i]));
    order.push_back(next_from_part);
    (next_from_part ? j : i)++;
  }
  interleave(rec_.events, part.events, tail, order);
  for (size_t c = 0; c < rec_.amounts.size(); ++c) interleave(rec_.amounts[c], part.amounts[c], tail, order);
  for (size_t c = 0; c < rec_.labels.size(); ++c) interleave(rec_.labels[c], part.labels[c], tail, order);
  interleave(rec_.lock_owners, part.lock_owners, tail, order);
  interleave(rec_.freed_ns, part.freed_ns, tail, order);
  interleave(rec_.object_tags, part.object_tags, tail, order);
}

void RecordingMerger::finish() {
  if (later_frees_.empty() || rec_.object_tags.empty()) return;
  const std::unordered_map<uint64_t, int64_t> deaths(later_frees_.begin(), later_frees_.end());
  later_frees_.clear();
  std::vector<bool> drop(rec_.events.size(), false);
  bool any = false;
  for (size_t i = 0; i < rec_.events.size(); ++i) {
    const auto death = rec_.object_tags[i] == 0 ? deaths.end() : deaths.find(rec_.object_tags[i]);
    if (death == deaths.end()) continue;
    if (rec_.events[i].kind == EventKind::Live) {
      drop[i] = any = true;
    } else if (rec_.freed_ns[i] == Recording::kNotFreed) {
      rec_.freed_ns[i] = death->second;
    }
  }
  if (any) removeEvents(drop);
}

void RecordingMerger::removeEvents(const std::vector<bool>& drop) {
  const auto keep = [&drop](auto& column) {
    if (column.empty()) return;
    size_t kept = 0;
    for (size_t i = 0; i < column.size(); ++i)
      if (!drop[i]) column[kept++] = std::move(column[i]);
    column.resize(kept);
  };
  for (std::vector<uint64_t>& column : rec_.amounts) keep(column);
  for (std::vector<uint32_t>& column : rec_.labels) keep(column);
  keep(rec_.lock_owners);
  keep(rec_.freed_ns);
  keep(rec_.object_tags);
  keep(rec_.events);
  const bool live_left = std::any_of(rec_.events.begin(), rec_.events.end(),
                                     [](const Event& e) { return e.kind == EventKind::Live; });
  if (!live_left) rec_.kinds_seen &= ~(1u << static_cast<unsigned>(EventKind::Live));
}

}  // namespace stackscope::analysis

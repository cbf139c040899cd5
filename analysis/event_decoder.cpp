#include "analysis/event_decoder.h"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "analysis/alloc_estimate.h"
#include "format/record_decoder.h"

namespace stackscope::analysis {

namespace {

std::optional<EventKind> kindOf(format::SampleKind kind, EventKind own) {
  switch (kind) {
    case format::SampleKind::Mode: return own;
    case format::SampleKind::Cpu: return EventKind::Cpu;
    case format::SampleKind::Wall: return EventKind::Wall;
  }
  return std::nullopt;
}

// A run's sparse columns, after the runs before it (`offset` events).
template <typename T, size_t N>
void appendColumns(const std::array<std::vector<std::pair<size_t, T>>, N>& run, size_t offset,
                   std::array<std::vector<std::pair<size_t, T>>, N>& totals) {
  for (size_t column = 0; column < N; ++column)
    for (const auto& [index, value] : run[column]) totals[column].emplace_back(offset + index, value);
}

// Sparse columns made dense (0 where an event carries nothing); a column no event filled
// stays empty. True when any column is filled.
template <typename T, size_t N>
bool densify(const std::array<std::vector<std::pair<size_t, T>>, N>& sparse, size_t events,
             std::array<std::vector<T>, N>& dense) {
  bool any = false;
  for (size_t column = 0; column < N; ++column) {
    if (sparse[column].empty()) continue;
    any = true;
    dense[column].assign(events, 0);
    for (const auto& [index, value] : sparse[column]) dense[column][index] = value;
  }
  return any;
}

// Puts `column` (empty, or one entry per event) in the events' new order.
template <typename Column>
void permute(Column& column, const std::vector<uint32_t>& order) {
  if (column.empty()) return;
  Column sorted(order.size());
  for (size_t i = 0; i < order.size(); ++i) sorted[i] = column[order[i]];
  column = std::move(sorted);
}

// Maps the pages of [from, to) in one call, instead of one page fault per 4 KiB as they are
// written: a third of a large load's time in perf. Only a hint (MADV_POPULATE_WRITE, Linux
// 5.14): where it fails, the pages fault in as before.
void prefault(const Event* from, const Event* to) {
  if (to <= from) return;
  constexpr uintptr_t kPage = 4096;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(from) + kPage - 1) & ~(kPage - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(to) & ~(kPage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
}

}  // namespace

void EventDecoder::expect(size_t events) {
  // At most two steps ahead of the events written, whatever the chunk claims, so that a hostile
  // record count costs no memory before events really fill the table (beyond it, pages fault
  // in as they are written).
  constexpr size_t kStep = (size_t{32} << 20) / sizeof(Event);
  const auto ahead = [&](size_t n) { return next_ + std::min<size_t>(n, region_end_ - next_); };
  if (ahead(std::min(events, kStep)) <= prefaulted_) return;
  const Event* const to = ahead(std::min(events, kStep) + kStep);
  prefault(prefaulted_, to);
  prefaulted_ = to;
}

bool EventDecoder::read(format::RecordingReader& reader, const format::ChunkInfo& chunk) { return reader.readChunkTyped(chunk, *this); }

inline void EventDecoder::sample(const format::SampleRecord& s) {
  seen(s.time_ns);
  if (!window_.contains(s.time_ns) || !accept(s.thread)) return;
  const std::optional<EventKind> kind = kindOf(s.kind, own_kind_);
  if (!kind) {
    ++out_.unknown_kinds;
    return;
  }
  named(s.thread);
  uint32_t stack = s.stack;
  // A stack lost with a damaged map chunk: keep the sample in the totals, with no frames.
  if (!stackKnown(stack)) {
    ++out_.missing_stacks;
    stack = 0;
  }
  // A virtual thread's carrier: kept per thread (a few), not per sample.
  if (s.carrier != 0 && s.carrier != s.thread && accept(s.carrier)) {
    named(s.carrier);
    if (carrier_pairs_.insert((uint64_t{s.thread} << 32) | s.carrier).second) out_.carriers.emplace_back(s.thread, s.carrier);
  }
  if (model_.isFolded(*kind)) return fold(s, *kind, stack);
  // Like a missing stack, a missing annotation leaves the sample in, unannotated.
  const uint32_t annotation = s.annotation < annotations_known_ ? s.annotation : 0;
  // Its thread's metric deltas (kTimeSampleMetrics' columns): most samples of an idle thread
  // carry none, and the sparse columns keep only those that do.
  if (s.cpu_us != 0) out_.amounts[kCpuTimeColumn].emplace_back(count_, s.cpu_us * 1000);
  if (s.alloc_bytes != 0) out_.amounts[kAllocBytesColumn].emplace_back(count_, s.alloc_bytes);
  store({s.time_ns, s.thread, stack, s.state, std::min(s.weight, Event::kMaxWeight), annotation, *kind});
}

void EventDecoder::addEvent(Event event) {
  if (!stackKnown(event.stack)) {
    if (event.stack != 0) ++out_.missing_stacks;
    event.stack = 0;
  }
  if (event.annotation >= annotations_known_) event.annotation = 0;
  store(event);
}

// A collection is an event of no thread and no stack; its time metric is its duration, its
// labels the collector and the cause.
void EventDecoder::gc(const format::GcRecord& g) {
  seen(g.time_ns);
  if (!window_.contains(g.time_ns)) return;
  const size_t index = count_;
  const MetricInfo& time = *findMetric(EventKind::Gc, "time");
  out_.amounts[time.column].emplace_back(index, g.duration_ns > 0 ? static_cast<uint64_t>(g.duration_ns) : 0);
  const auto known = [&](uint32_t id) { return id < model_.strings.size() ? id : 0; };
  if (const uint32_t collector = known(g.collector)) out_.labels[static_cast<size_t>(Label::Collector)].emplace_back(index, collector);
  if (const uint32_t cause = known(g.cause)) out_.labels[static_cast<size_t>(Label::Cause)].emplace_back(index, cause);
  addEvent({g.time_ns, 0, 0, format::ThreadState::Unknown, 1, 0, EventKind::Gc});
}

void EventDecoder::exception(const format::ExceptionRecord& e) {
  seen(e.time_ns);
  if (!window_.contains(e.time_ns) || !accept(e.thread)) return;
  named(e.thread);
  addEvent({e.time_ns, e.thread, e.stack, format::ThreadState::Running, 1, e.annotation, EventKind::Exception});
}

// A sampled allocation: an event of its thread and stack, valued in objects and bytes as the
// estimates of the true totals it stands for (alloc_estimate.h), with its object's class.
void EventDecoder::alloc(const format::AllocRecord& a) {
  seen(a.time_ns);
  if (!window_.contains(a.time_ns) || !accept(a.thread)) return;
  named(a.thread);
  const AllocEstimate estimate = estimateAllocation(a.size, a.interval);
  // The tag names an object once; without one, the event's own coordinates seed the rounding.
  const uint64_t seed = a.tag != 0 ? a.tag : static_cast<uint64_t>(a.time_ns) ^ (uint64_t{a.stack} << 32) ^ a.thread;
  const size_t index = count_;
  out_.amounts[findMetric(EventKind::Alloc, "objects")->column].emplace_back(index, roundUnbiased(estimate.objects, seed));
  const auto bytes = static_cast<uint64_t>(std::llround(std::min(estimate.bytes, kLargestEstimate)));
  out_.amounts[findMetric(EventKind::Alloc, "bytes")->column].emplace_back(index, bytes);
  if (a.class_name != 0 && a.class_name < model_.strings.size())
    out_.labels[static_cast<size_t>(Label::ObjectClass)].emplace_back(index, a.class_name);
  if (a.tag != 0) out_.tags.emplace_back(index, a.tag);
  if (std::find(out_.alloc_intervals.begin(), out_.alloc_intervals.end(), a.interval) == out_.alloc_intervals.end())
    out_.alloc_intervals.push_back(a.interval);
  addEvent({a.time_ns, a.thread, a.stack, format::ThreadState::Running, 1, a.annotation, EventKind::Alloc});
}

// Only deaths inside the window matter: an object allocated in it and freed after its end was
// live at its end.
void EventDecoder::objectFree(const format::ObjectFreeRecord& f) {
  seen(f.time_ns);
  if (window_.contains(f.time_ns) && f.tag != 0) out_.freed.emplace_back(f.tag, f.time_ns);
}

// A class histogram is an event per class, of no thread, its stack the class's frame, valued
// in instances and bytes.
void EventDecoder::classHistogram(const format::ClassHistogramRecord& h) {
  seen(h.time_ns);
  if (!window_.contains(h.time_ns)) return;
  const MetricInfo& instances = *findMetric(EventKind::Histogram, "instances");
  const MetricInfo& bytes = *findMetric(EventKind::Histogram, "bytes");
  for (const format::ClassCountEntry& c : h.classes) {
    const size_t index = count_;
    out_.amounts[instances.column].emplace_back(index, c.instances);
    out_.amounts[bytes.column].emplace_back(index, c.bytes);
    // The class as the object class label too, so classes[…] and --where class= select rows.
    const std::vector<format::Frame>* frames = c.stack < model_.stacks.size() ? &model_.stacks[c.stack] : nullptr;
    const uint32_t method = frames && !frames->empty() ? frames->front().method : 0;
    if (method != 0 && method < model_.methods.size() && model_.methods[method].method_name != 0)
      out_.labels[static_cast<size_t>(Label::ObjectClass)].emplace_back(index, model_.methods[method].method_name);
    addEvent({h.time_ns, 0, c.stack, format::ThreadState::Unknown, 1, 0, EventKind::Histogram});
  }
  out_.histograms.push_back({h.time_ns, std::max<int64_t>(h.pause_ns, 0)});
}

// A wait of the lock trace: an event of its thread and stack valued in its duration, labelled
// with the lock's class, and with the owner and the owner's stack when the agent found them.
void EventDecoder::lock(const format::LockRecord& l) {
  seen(l.time_ns);
  if (!window_.contains(l.time_ns) || !accept(l.thread)) return;
  named(l.thread);
  const EventKind kind = l.kind == format::WaitKind::Lock ? EventKind::Lock : EventKind::Wait;
  const size_t index = count_;
  out_.amounts[findMetric(kind, "time")->column].emplace_back(index, l.duration_ns > 0 ? static_cast<uint64_t>(l.duration_ns) : 0);
  if (l.lock_class != 0 && l.lock_class < model_.strings.size())
    out_.labels[static_cast<size_t>(Label::ObjectClass)].emplace_back(index, l.lock_class);
  if (l.owner != 0 && accept(l.owner)) {
    named(l.owner);
    out_.owners.emplace_back(index, LockOwner{l.owner, stackKnown(l.owner_stack) ? l.owner_stack : 0});
  }
  addEvent({l.time_ns, l.thread, l.stack, format::ThreadState::Blocked, 1, l.annotation, kind});
}

void EventDecoder::threadStart(const format::ThreadEventRecord& e) {
  seen(e.time_ns);
  if (!accept(e.thread)) return;
  named(e.thread);
  out_.starts.emplace_back(e.thread, e.time_ns);
}

void EventDecoder::threadEnd(const format::ThreadEventRecord& e) {
  seen(e.time_ns);
  if (!accept(e.thread)) return;
  named(e.thread);
  out_.ends.emplace_back(e.thread, e.time_ns);
}

void EventDecoder::status(const format::StatusRecord& s) {
  seen(s.time_ns);
  if (window_.contains(s.time_ns)) out_.statuses.push_back(s);
}

void EventDecoder::lost(const format::LostRecord& l) {
  seen(l.time_ns);
  if (window_.contains(l.time_ns)) out_.lost[l.reason] += l.count;
}

void EventDecoder::end(const format::RecordingEndRecord& e) {
  seen(e.time_ns);
  out_.ended = true;
  out_.end_ns = e.time_ns;
}

void mergeEvents(Recording& rec, DecodedEvents&& run, DecodedEvents& totals) {
  EventTable& table = rec.events;
  const size_t offset = totals.placed;
  const size_t count = run.placed + run.spilled.size();
  if (count != 0) {
    const Event& first = run.placed != 0 ? table[run.region_begin + totals.spill_shift] : run.spilled.front();
    totals.out_of_order |= run.out_of_order || (offset != 0 && first.time_ns < table[offset - 1].time_ns);
  }
  // Down to follow the runs before it (a copy only when an earlier run fell short of its
  // region: a window, or records that were not events), then its spill in place.
  if (const size_t region = run.region_begin + totals.spill_shift; region != offset) {
    const auto from = table.begin() + static_cast<std::ptrdiff_t>(region);  // after `offset`: std::copy may overlap so
    std::copy(from, from + static_cast<std::ptrdiff_t>(run.placed), table.begin() + static_cast<std::ptrdiff_t>(offset));
  }
  if (!run.spilled.empty()) {
    table.insert(table.begin() + static_cast<std::ptrdiff_t>(offset + run.placed), run.spilled.begin(), run.spilled.end());
    totals.spill_shift += run.spilled.size();
  }
  totals.placed += count;
  appendColumns(run.amounts, offset, totals.amounts);
  appendColumns(run.labels, offset, totals.labels);
  for (const auto& [index, owner] : run.owners) totals.owners.emplace_back(offset + index, owner);
  for (const auto& [index, tag] : run.tags) totals.tags.emplace_back(offset + index, tag);
  totals.freed.insert(totals.freed.end(), run.freed.begin(), run.freed.end());
  for (uint64_t interval : run.alloc_intervals)
    if (std::find(totals.alloc_intervals.begin(), totals.alloc_intervals.end(), interval) == totals.alloc_intervals.end())
      totals.alloc_intervals.push_back(interval);
  for (size_t kind = 0; kind < kEventKindCount; ++kind) rec.folded[kind].add(run.folded[kind]);
  rec.histograms.insert(rec.histograms.end(), run.histograms.begin(), run.histograms.end());
  rec.kinds_seen |= run.kinds_seen;
  rec.statuses.insert(rec.statuses.end(), run.statuses.begin(), run.statuses.end());
  for (const auto& [reason, count] : run.lost) rec.lost[reason] += count;
  if (rec.threads.size() <= run.max_thread) rec.threads.resize(size_t{run.max_thread} + 1);
  // A thread starts at its first start and ends at its last end, in file order: an id that
  // starts again is the same thread (the launcher's main attaching again as DestroyJavaVM,
  // agent/thread_tracker.h), as the merge of a rotated recording's parts counts it too.
  for (const auto& [thread, time] : run.starts)
    if (rec.threads[thread].start_ns == ThreadInfo::kUnknownTime) rec.threads[thread].start_ns = time;
  for (const auto& [thread, time] : run.ends) rec.threads[thread].end_ns = time;
  for (const auto& [thread, carrier] : run.carriers) {
    std::vector<uint32_t>& carriers = rec.threads[thread].carriers;
    if (carriers.size() < ThreadInfo::kMaxCarriers && std::find(carriers.begin(), carriers.end(), carrier) == carriers.end())
      carriers.push_back(carrier);
  }
  if (run.ended) {
    totals.ended = true;
    totals.end_ns = run.end_ns;
  }
  totals.last_event_ns = std::max(totals.last_event_ns, run.last_event_ns);
  totals.missing_stacks += run.missing_stacks;
  totals.unknown_kinds += run.unknown_kinds;
  totals.rejected_ids += run.rejected_ids;
}

namespace {

// The followed objects' deaths, as the alloc events' column Recording::freed_ns, and the live
// events: a copy, of kind live, of each followed alloc event whose object was not freed in the
// window, with its column entries. Appended: the time sort puts them in place.
bool addLiveEvents(Recording& rec, const DecodedEvents& totals) {
  if (totals.tags.empty()) {
    rec.frees_unmatched = totals.freed;  // objects of an earlier part, if any
    return false;
  }
  std::unordered_map<uint64_t, int64_t> freed(totals.freed.begin(), totals.freed.end());
  rec.freed_ns.assign(rec.events.size(), Recording::kNotFreed);
  rec.object_tags.assign(rec.events.size(), 0);
  bool added = false;
  for (const auto& [index, tag] : totals.tags) {
    rec.object_tags[index] = tag;
    if (const auto death = freed.find(tag); death != freed.end()) {
      rec.freed_ns[index] = death->second;
      freed.erase(death);
      continue;
    }
    Event live = rec.events[index];
    live.kind = EventKind::Live;
    for (std::vector<uint64_t>& column : rec.amounts)
      if (!column.empty()) column.push_back(column[index]);
    for (std::vector<uint32_t>& column : rec.labels)
      if (!column.empty()) column.push_back(column[index]);
    rec.freed_ns.push_back(Recording::kNotFreed);
    rec.object_tags.push_back(tag);
    rec.events.push_back(live);
    added = true;
  }
  rec.frees_unmatched.assign(freed.begin(), freed.end());
  if (added) rec.kinds_seen |= 1u << static_cast<unsigned>(EventKind::Live);
  return added;
}

}  // namespace

void finishEvents(Recording& rec, const DecodedEvents& totals) {
  rec.events.resize(totals.placed);  // the runs' regions were sized from record counts: the rest is unused
  // The stored quantities and labels, dense: a column is empty or parallel to the events.
  const bool has_amounts = densify(totals.amounts, rec.events.size(), rec.amounts);
  const bool has_labels = densify(totals.labels, rec.events.size(), rec.labels);
  if (!totals.owners.empty()) {
    rec.lock_owners.assign(rec.events.size(), LockOwner{});
    for (const auto& [index, owner] : totals.owners) rec.lock_owners[index] = owner;
  }
  rec.alloc_intervals = totals.alloc_intervals;
  std::sort(rec.alloc_intervals.begin(), rec.alloc_intervals.end());
  const bool out_of_order = addLiveEvents(rec, totals) || totals.out_of_order;
  const bool has_columns = has_amounts || has_labels || !rec.lock_owners.empty() || !rec.freed_ns.empty();
  // Writers may emit events slightly out of order (a trace's events are written after the
  // samples taken meanwhile); statistics that follow a thread from event to event (call
  // counts) need time order. The columns follow their events.
  const auto by_time = [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; };
  if (out_of_order && !has_columns) {
    std::stable_sort(rec.events.begin(), rec.events.end(), by_time);
  } else if (out_of_order) {
    std::vector<uint32_t> order(rec.events.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return by_time(rec.events[a], rec.events[b]); });
    permute(rec.events, order);
    for (std::vector<uint64_t>& column : rec.amounts) permute(column, order);
    for (std::vector<uint32_t>& column : rec.labels) permute(column, order);
    permute(rec.lock_owners, order);
    permute(rec.freed_ns, order);
    permute(rec.object_tags, order);
  }
  std::stable_sort(rec.histograms.begin(), rec.histograms.end(),
                   [](const HistogramPoint& a, const HistogramPoint& b) { return a.time_ns < b.time_ns; });
  // Events of no thread (collections) name thread 0: the table has its entry.
  if (rec.threads.empty() && !rec.events.empty()) rec.threads.resize(1);
  if (totals.missing_stacks)
    rec.warnings.push_back(std::to_string(totals.missing_stacks) +
                           " samples refer to stack traces missing from the file; they count in totals without frames");
  if (totals.unknown_kinds)
    rec.warnings.push_back(std::to_string(totals.unknown_kinds) + " samples of a kind this reader does not know were skipped");
}

}  // namespace stackscope::analysis

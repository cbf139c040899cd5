// Decoding the event records of a run of event chunks, apart from the model, so that runs
// can be decoded on several cores at once (load.cpp) and merged in chunk order into the same
// model a sequential read builds. A decoder only reads the map data of the model it is given
// (stacks, annotations, the recording's own kind), which is complete before any event chunk
// is read (docs/format.md, invariant 2), so decoders of one model never race.
#pragma once

#include <cstdint>
#include <array>
#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "analysis/recording.h"
#include "format/reader.h"

namespace stackscope::analysis {

// What a run of event chunks holds, in file order. Its events are in its region of the
// model's table (placed), then, when the chunks held more than their record counts said, in
// `spilled`; indices below count them in that order.
struct DecodedEvents {
  size_t region_begin = 0;  // where its region starts in the table, before any earlier run's spill
  size_t placed = 0;
  std::vector<Event> spilled;
  size_t spill_shift = 0;  // in the totals only: events earlier spills inserted, moving later regions up
  uint32_t kinds_seen = 0;
  bool out_of_order = false;
  std::vector<format::StatusRecord> statuses;
  std::map<format::LostReason, uint64_t> lost;
  std::vector<std::pair<uint32_t, int64_t>> starts, ends;  // (thread, time)
  std::vector<std::pair<uint32_t, uint32_t>> carriers;     // (virtual thread, carrier), first sightings
  uint32_t max_thread = 0;                                 // the largest thread id an event named
  bool ended = false;
  int64_t end_ns = 0;
  int64_t last_event_ns = 0;
  uint64_t missing_stacks = 0;
  uint64_t unknown_kinds = 0;
  uint64_t rejected_ids = 0;
  // Stored quantities of the events that carry one: (index in `events`, value) per column,
  // sparse, since most events carry none (Recording::amounts is dense once loaded).
  std::array<std::vector<std::pair<size_t, uint64_t>>, kAmountColumns> amounts;
  std::array<std::vector<std::pair<size_t, uint32_t>>, kLabelColumns> labels;  // the same for labels
  std::vector<std::pair<size_t, uint64_t>> tags;  // (index, tag): alloc events whose deaths are followed
  std::vector<std::pair<uint64_t, int64_t>> freed;  // (tag, time): the objects freed in the window
  std::vector<uint64_t> alloc_intervals;          // distinct, in order of appearance
  std::vector<std::pair<size_t, LockOwner>> owners;                            // and for lock owners
  std::vector<HistogramPoint> histograms;
  std::array<StackSums, kEventKindCount> folded;  // the samples of the model's folded kinds
};

// Ids index dense tables, so an id from a damaged or hostile file must not make us allocate
// gigabytes. Writers hand out ids from 1 upwards; 16 M of any kind is far beyond real use.
inline constexpr uint32_t kMaxId = 1u << 24;

class EventDecoder final : public format::RecordVisitor {
 public:
  // `model` holds the map data (read only); events outside `window` are left out. The events
  // are written into `table`'s entries [begin, end), which the caller sized (resize), which no
  // other decoder writes, and which stay where they are (no reallocation) until take(); beyond
  // `end` they are kept apart (spilled).
  EventDecoder(const Recording& model, const TimeWindow& window, EventTable& table, size_t begin, size_t end)
      : model_(model), window_(window), own_kind_(model.eventKinds().front()),
        next_(table.data() + begin), region_end_(table.data() + end) {
    out_.region_begin = begin;
  }
  DecodedEvents take() {
    out_.placed = count_ - out_.spilled.size();
    for (size_t kind = 0; kind < kEventKindCount; ++kind)  // told here, not per folded sample
      if (out_.folded[kind].events != 0) out_.kinds_seen |= 1u << kind;
    return std::move(out_);
  }
  // About to decode up to `events` more events (a chunk's record count): the region's pages
  // for them are mapped ahead, in one call (event_decoder.cpp, prefault). Nothing else changes.
  void expect(size_t events);
  // Reads one event chunk of `reader` into the run, each record's handler below called directly
  // (format/record_decoder.h), not through RecordVisitor. False when the chunk was skipped.
  bool read(format::RecordingReader& reader, const format::ChunkInfo& chunk);

  // Inlined into the record loop (read): one call per sample showed in perf.
  [[gnu::always_inline]] inline void sample(const format::SampleRecord& s) override;
  void gc(const format::GcRecord& g) override;
  void exception(const format::ExceptionRecord& e) override;
  void alloc(const format::AllocRecord& a) override;
  void objectFree(const format::ObjectFreeRecord& f) override;
  void lock(const format::LockRecord& l) override;
  void classHistogram(const format::ClassHistogramRecord& h) override;
  void threadStart(const format::ThreadEventRecord& e) override;
  void threadEnd(const format::ThreadEventRecord& e) override;
  void status(const format::StatusRecord& s) override;
  void lost(const format::LostRecord& l) override;
  void end(const format::RecordingEndRecord& e) override;

 private:
  bool accept(uint32_t id) {
    if (id < kMaxId) [[likely]]
      return true;
    ++out_.rejected_ids;
    return false;
  }
  bool stackKnown(uint32_t stack) const { return stack < stacks_known_ && model_.stack_defined[stack]; }
  // A time sample of a folded kind (Recording::kinds_folded), added to its stack's sums.
  [[gnu::always_inline]] void fold(const format::SampleRecord& s, EventKind kind, uint32_t stack) {
    StackSums& sums = out_.folded[static_cast<size_t>(kind)];
    if (sums.weight.empty()) [[unlikely]]
      startSums(sums.weight);
    ++sums.events;
    sums.weight[stack] += std::min(s.weight, Event::kMaxWeight);
    if (s.cpu_us != 0) addToSums(sums.amounts[kCpuTimeColumn], stack, s.cpu_us * 1000);
    if (s.alloc_bytes != 0) addToSums(sums.amounts[kAllocBytesColumn], stack, s.alloc_bytes);
  }
  // A sum per stack the decoder knows, all 0.
  void startSums(std::vector<uint64_t>& sums) const { sums.assign(std::max<size_t>(stacks_known_, 1), 0); }
  void addToSums(std::vector<uint64_t>& sums, uint32_t stack, uint64_t value) const {
    if (sums.empty()) startSums(sums);
    sums[stack] += value;
  }
  // An event of a trace: its stack and annotation checked as a sample's are.
  void addEvent(Event event);
  // Appends an event checked as valid to the run's events. Field by field: the event's
  // bitfields, built in memory byte by byte then copied as one block, stalled every store on
  // the block's load (perf: half the decoder's time).
  [[gnu::always_inline]] void store(const Event& event) {
    out_.out_of_order |= count_ != 0 && event.time_ns < last_time_ns_;
    last_time_ns_ = event.time_ns;
    Event& slot = next_ != region_end_ ? *next_++ : out_.spilled.emplace_back();
    slot.time_ns = event.time_ns;
    slot.thread = event.thread;
    slot.stack = event.stack;
    slot.state = event.state;
    slot.weight = event.weight;
    slot.annotation = event.annotation;
    slot.kind = event.kind;
    ++count_;
    out_.kinds_seen |= 1u << static_cast<unsigned>(event.kind);
  }
  void seen(int64_t time_ns) { out_.last_event_ns = std::max(out_.last_event_ns, time_ns); }
  // Threads the map data described need no slot made: the usual case costs one compare.
  void named(uint32_t thread) {
    if (thread >= threads_known_) out_.max_thread = std::max(out_.max_thread, thread);
  }

  const Recording& model_;
  TimeWindow window_;
  DecodedEvents out_;
  EventKind own_kind_;  // of Sample records, which do not name theirs: the mode's
  // The sizes of the model's tables, read once (a size is a division for most element types).
  size_t threads_known_ = model_.threads.size();
  size_t stacks_known_ = model_.stack_defined.size();
  size_t annotations_known_ = model_.annotations.size();
  std::unordered_set<uint64_t> carrier_pairs_;
  Event* next_;  // where the next event goes in the region
  Event* region_end_;
  const Event* prefaulted_ = next_;  // the region's pages up to here were mapped by expect()
  size_t count_ = 0;  // events of the run so far, placed and spilled
  int64_t last_time_ns_ = 0;
};

// Adds a run's events to the model, after the runs before it (`totals.placed` events): its
// region is moved down to follow them, then its spilled events are inserted. Call
// finishEvents once all runs are in.
void mergeEvents(Recording& recording, DecodedEvents&& run, DecodedEvents& totals);
void finishEvents(Recording& recording, const DecodedEvents& totals);

}  // namespace stackscope::analysis

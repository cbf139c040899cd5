// The event model of one recording, as the front-end holds it in memory: map data in dense
// tables indexed by the file's ids, and the events the statistics run over. Built by
// loadRecording (load.h); every statistic reads it through an EventScope (view.h): one kind
// of event, one metric, and a predicate, so snapshots and logical filters narrow the events
// without copying the model.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/event_kinds.h"
#include "format/records.h"

namespace stackscope::analysis {

// A sub-interval of the recording, as offsets from its time 0 in ns. Half-open,
// [from_ns, to_ns), so adjacent windows ("--to 1m" then "--from 1m") split samples
// without counting any twice.
struct TimeWindow {
  static constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();
  int64_t from_ns = 0;
  int64_t to_ns = kOpen;

  bool contains(int64_t time_ns) const { return time_ns >= from_ns && time_ns < to_ns; }
  bool whole() const { return from_ns <= 0 && to_ns == kOpen; }
  bool operator==(const TimeWindow&) const = default;
};

struct MethodInfo {
  bool defined = false;  // false: referred to by a stack, never described by the file
  uint32_t class_name = 0;   // string ids, as in format::MethodRecord
  uint32_t method_name = 0;
  uint32_t signature = 0;
  uint32_t source_file = 0;
  std::vector<format::LineEntry> lines;
  uint32_t code_source = 0;  // the class's module or jar (format::MethodRecord), 0 = unknown
};

struct ThreadInfo {
  static constexpr int64_t kUnknownTime = std::numeric_limits<int64_t>::min();
  bool defined = false;  // false: referred to by a sample, never described by the file
  std::string name;  // the last one, but see takeName
  int64_t os_tid = 0;
  int64_t java_id = 0;
  int64_t start_ns = kUnknownTime;  // from ThreadStart / ThreadEnd events
  int64_t end_ns = kUnknownTime;
  std::vector<std::string> names = {};  // every name it had, oldest first (renames), at most kMaxNames
  static constexpr size_t kMaxNames = 64;  // beyond, the oldest are dropped
  // A name the thread had next: it becomes `name` and joins `names`. Except the launcher's
  // thread, which detaches as main once main() returned and attaches again as DestroyJavaVM
  // to wait for the other threads (one id, agent/thread_tracker.h): not a rename by the
  // program, so the thread keeps the name its work was done under.
  void takeName(const std::string& next) {
    if (name.empty() || next != "DestroyJavaVM") name = next;
    if (std::find(names.begin(), names.end(), next) != names.end()) return;
    if (names.size() >= kMaxNames) names.erase(names.begin());
    names.push_back(next);
  }
  bool is_virtual = false;  // a virtual thread (JDK 21+)
  std::vector<uint32_t> carriers = {};  // virtual: the platform threads it ran on, at most kMaxCarriers
  static constexpr size_t kMaxCarriers = 256;
  // Which thread started it, with that thread's stack at Thread.start (ThreadParent records):
  // 0 = unknown (started before the agent, a JVM or virtual thread, an old recording).
  uint32_t parent = 0;
  uint32_t parent_stack = 0;
  int64_t started_ns = kUnknownTime;  // when the parent started it
};

// One event of the model: a time sample (cpu, wall) today, any traced event tomorrow
// (event_kinds.h). 24 bytes: a long recording holds tens of millions of these, so fields
// share words: ids are below 2^24 (the loader refuses larger ones), weights are clamped to
// kMaxWeight. A kind's stored quantities (bytes, ns) live beside, in Recording::amounts.
struct Event {
  static constexpr uint32_t kMaxWeight = (1u << 24) - 1;
  int64_t time_ns = 0;
  uint32_t thread = 0;
  uint32_t stack = 0;
  format::ThreadState state : 8 = format::ThreadState::Unknown;
  uint32_t weight : 24 = 1;      // the samples or occurrences the event stands for
  uint32_t annotation : 24 = 0;  // index into Recording::annotations, 0 = none
  EventKind kind : 8 = EventKind::Cpu;
};
static_assert(sizeof(Event) == 24);

// Gives the pages of a large block that is about to be freed back to the kernel on every
// usable core, each its own part: unmapping the event table took one core 3 % of a load's
// time (perf, 20 M events), after the decoding had run on all of them. Small blocks are left to free().
void releasePagesInParallel(void* block, size_t bytes) noexcept;

// Allocates the event table, whose resize() leaves the new events unwritten: the loader sizes
// the table for every run of chunks at once and each run's thread fills its own part
// (load.cpp), so no page of it is written, and faulted in, by one thread for all of them.
// Every other way of adding events (push_back, insert, assign) writes them as usual.
template <typename T>
struct UnwrittenTailAllocator {
  using value_type = T;
  UnwrittenTailAllocator() = default;
  template <typename U>
  UnwrittenTailAllocator(const UnwrittenTailAllocator<U>&) noexcept {}
  T* allocate(size_t n) { return std::allocator<T>{}.allocate(n); }
  void deallocate(T* p, size_t n) noexcept {
    releasePagesInParallel(p, n * sizeof(T));
    std::allocator<T>{}.deallocate(p, n);
  }
  template <typename U>
  void construct(U*) noexcept {}  // an aggregate's storage: written by its run's decoder
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }
  bool operator==(const UnwrittenTailAllocator&) const = default;
};
using EventTable = std::vector<Event, UnwrittenTailAllocator<Event>>;

// The owner of the lock a lock event waited for, when the agent found it: the culprit thread
// and its stack at that moment (0 = unknown).
struct LockOwner {
  uint32_t thread = 0;
  uint32_t stack = 0;
};

// One class histogram of the recording (its classes are events of kind histogram at its time).
struct HistogramPoint {
  int64_t time_ns = 0;
  int64_t pause_ns = 0;  // how long its heap walk held the VM stopped
};

// Events of one kind folded while loading into sums per stack id (Recording::folded): all a
// view that only sums per stack needs of them, without a row (24 bytes, mapped, written and
// freed) per event.
struct StackSums {
  uint64_t events = 0;
  std::vector<uint64_t> weight;  // indexed by stack id: the events' weight summed; empty: no event
  // Their stored quantities (Recording::amounts' columns) summed, each empty when no event
  // carried it.
  std::array<std::vector<uint64_t>, kAmountColumns> amounts;
  void add(const StackSums& other);
};

// Who a thread worked for at a sample: a string id per format::AnnotationField, 0 = unset.
using Annotation = std::array<uint32_t, format::kAnnotationFieldCount>;

struct Recording {
  bool has_info = false;
  format::RecordingInfo info;

  // Dense tables indexed by the file's ids; entry 0 is unused (ids start at 1).
  // Invariants the loader guarantees and the statistics rely on (they index without checks):
  // every frame's method id indexes `methods`; every event's stack indexes `stacks` (0, the
  // empty stack, when the file lost it), its thread indexes `threads`, its annotation
  // indexes `annotations`.
  std::vector<std::string> strings;
  std::vector<MethodInfo> methods;
  std::vector<std::vector<format::Frame>> stacks;  // innermost (top) frame first
  std::vector<bool> stack_defined;
  std::vector<ThreadInfo> threads;
  std::vector<Annotation> annotations;

  // Events inside the window (markers excepted), sorted by time, of every kind.
  EventTable events;
  // Quantities the events of some kinds carry (MetricSource::Amount), one column each, every
  // column either empty (no event carries it) or parallel to `events`.
  std::array<std::vector<uint64_t>, kAmountColumns> amounts;
  // Names some events carry (event_kinds.h, Label), string ids, 0 = none; every column either
  // empty or parallel to `events`, like `amounts`.
  std::array<std::vector<uint32_t>, kLabelColumns> labels;
  // The alloc trace's mean sampling intervals (bytes) in the window, ascending: one, unless
  // it changed while recording. What the objects and bytes metrics were scaled with.
  std::vector<uint64_t> alloc_intervals;
  // When the object of an alloc event was freed, for objects whose deaths the live trace
  // followed: empty (none followed) or parallel to `events`; kNotFreed for objects not freed in
  // the window and for events of other kinds.
  static constexpr int64_t kNotFreed = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> freed_ns;
  // The live trace's tag of the object of an alloc event and of its live copy: empty (none
  // followed) or parallel to `events`, 0 for other events. Deaths in the window of objects
  // whose allocation is not in this file (an earlier part of a rotated recording), as
  // (tag, time): the merge of the parts matches them (recording_merge.h).
  std::vector<uint64_t> object_tags;
  std::vector<std::pair<uint64_t, int64_t>> frees_unmatched;
  // Lock events' owners: empty (none known) or parallel to `events`.
  std::vector<LockOwner> lock_owners;
  uint32_t kinds_seen = 0;  // bit per EventKind with events in `events` or `folded`: the loader keeps it
  // Bit per EventKind whose events were folded into `folded` instead of rows of `events`, on the
  // caller's request (load.h, SampleRows::Folded): time samples, for a view that sums per stack
  // over a selection no predicate narrows. Such a kind has no row in `events`: only
  // valuesByStack answers for it (stack_counts.h), and forEachEvent refuses it.
  uint32_t kinds_folded = 0;
  std::array<StackSums, kEventKindCount> folded;  // by kind
  bool isFolded(EventKind kind) const { return (kinds_folded >> static_cast<unsigned>(kind)) & 1u; }
  std::vector<HistogramPoint> histograms;  // the class histograms in the window, by time
  std::vector<format::StatusRecord> statuses;
  std::vector<format::MarkerRecord> markers;  // every marker of the recording, whatever the window
  std::map<format::LostReason, uint64_t> lost;  // samples due but not taken, by reason

  TimeWindow window;
  bool ended = false;  // RecordingEnd seen: the recording finished properly
  int64_t end_ns = 0;  // RecordingEnd's time, or the last event's time when the file is torn
  std::vector<std::string> warnings;  // the reader's, then the loader's
  uint64_t file_size = 0;
  uint64_t bytes_read = 0;  // of the file, to load this model: less than file_size for a window

  // The kinds of events the recording has: those its mode names ("cpu", "wall"), then any
  // other kind with events in the window. The first is the recording's own (the default).
  std::vector<EventKind> eventKinds() const;

  const std::string& string(uint32_t id) const;
  std::span<const format::Frame> stack(uint32_t id) const;
  // An exception event's class, from the pseudo-frame on top of its stack (docs/format.md,
  // Exception): "java.lang.IllegalStateException", caught or not; "" for any other stack.
  std::string_view thrownClass(uint32_t stack) const;
  // The label of an event of `events` (views and predicates are handed elements of it, so the
  // event's place in it is its index in the columns); 0 when it carries none.
  uint32_t label(const Event& event, Label label) const;
  // The owner of a lock event's lock (thread 0 = unknown); `event` as for label().
  LockOwner lockOwner(const Event& event) const;
  uint64_t lostTotal() const;
  // Empties what a window's events make (the events and their columns, statuses, losses, each
  // thread's start, end and carriers, the warnings, the end) and keeps the map data: for a
  // model that is read again over the next window as its file grows (followed_recording.h).
  void dropEvents();
  // Length of the window actually covered: the window clipped to [0, end_ns].
  int64_t viewDurationNs() const;
  // Where the window ends: its end, or the recording's when it goes further. Live objects are
  // those not freed by then; their age is counted back from it.
  int64_t windowEndNs() const { return std::min(window.to_ns, end_ns); }
};

}  // namespace stackscope::analysis

// What a statistic runs over: the events of one kind that a predicate keeps, each valued in
// one metric (an EventScope). Logical filters (--where), navigation and nested snapshots are
// predicates, so every statistic stays one pass over the events whatever narrows the view;
// the kind and the metric are parameters of that pass, so every view is written once for
// every kind of event.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>

#include "analysis/recording.h"

namespace stackscope::analysis {

using EventPredicate = std::function<bool(const Event&)>;

struct EventScope {
  EventKind kind = EventKind::Cpu;
  const MetricInfo* metric = &defaultMetric(EventKind::Cpu);
  EventPredicate keep;  // empty: every event of the kind
};

// The recording's own kind of event (the first of Recording::eventKinds) counted in its
// default metric: what a report shows when no --event or --metric is given.
EventScope ownEvents(const Recording& recording, EventPredicate keep = {});

// What every view reports of the events it counted: the samples (or occurrences) they stand
// for, the "Samples" of a report's header, and their value in the metric, the base of every
// percentage.
struct ViewTotals {
  uint64_t samples = 0;
  uint64_t value = 0;
};

// What a set of events adds up to beyond their total: how many, the largest single value and
// when it happened, when the first and the last happened. Any metric of any kind: the longest
// collection in gc time, the longest wait in lock time.
struct EventAggregate {
  uint64_t events = 0;
  uint64_t samples = 0;  // the samples or occurrences the events stand for
  uint64_t value = 0;    // in the metric
  uint64_t max = 0;      // the largest value of one event
  int64_t max_at_ns = 0;  // the time of the first event with that value
  int64_t first_ns = 0;   // the time of the earliest event and of the latest
  int64_t last_ns = 0;

  void add(const Event& event, uint64_t v) {
    if (events == 0 || event.time_ns < first_ns) first_ns = event.time_ns;
    if (events == 0 || event.time_ns > last_ns) last_ns = event.time_ns;
    if (events == 0 || v > max || (v == max && event.time_ns < max_at_ns)) {
      max = v;
      max_at_ns = event.time_ns;
    }
    ++events;
    samples += event.weight;
    value += v;
  }
  void merge(const EventAggregate& other);
};

// Share of the view's value, in percent; an empty view has 0 everywhere.
inline double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

// The value of an event in one metric: the ONE place a metric is read, so that views only
// ever add up what they are given.
class MetricValue {
 public:
  MetricValue(const Recording& recording, const MetricInfo& metric);
  uint64_t operator()(const Event& event, size_t index) const { return amounts_ ? amounts_[index] : event.weight * scale_; }
  // The value of the events folded into `sums` (Recording::folded) with stack `stack`: the
  // sum of their values, as the rows would have given them one by one.
  uint64_t operator()(const StackSums& sums, uint32_t stack) const {
    if (!column_) return sums.weight[stack] * scale_;
    const std::vector<uint64_t>& summed = sums.amounts[*column_];
    return stack < summed.size() ? summed[stack] : 0;
  }

 private:
  const uint64_t* amounts_ = nullptr;  // the metric's column, for stored quantities
  uint64_t scale_ = 1;                 // otherwise: value = weight * scale
  std::optional<uint8_t> column_;      // the column of a stored quantity
};

// Calls fn(event, value) for every event of the scope's kind that its predicate keeps, and
// returns their totals; only events [begin, end) of the recording's table when given.
template <typename Fn>
ViewTotals forEachEvent(const Recording& recording, const EventScope& scope, Fn&& fn, size_t begin = 0,
                        size_t end = SIZE_MAX) {
  // Folded events have no row to hand to fn: only valuesByStack (stack_counts.h) sums them.
  if (recording.isFolded(scope.kind)) throw std::logic_error("events folded per stack have no rows to visit");
  const MetricValue value(recording, *scope.metric);
  ViewTotals totals;
  const EventTable& events = recording.events;
  for (size_t i = begin; i < std::min(end, events.size()); ++i) {
    const Event& event = events[i];
    if (event.kind != scope.kind || (scope.keep && !scope.keep(event))) continue;
    const uint64_t v = value(event, i);
    totals.samples += event.weight;
    totals.value += v;
    fn(event, v);
  }
  return totals;
}

}  // namespace stackscope::analysis

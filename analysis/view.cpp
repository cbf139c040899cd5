#include "analysis/view.h"

#include <algorithm>

namespace stackscope::analysis {

EventScope ownEvents(const Recording& recording, EventPredicate keep) {
  const EventKind kind = recording.eventKinds().front();
  return {kind, &defaultMetric(kind), std::move(keep)};
}

void EventAggregate::merge(const EventAggregate& other) {
  if (other.events == 0) return;
  if (events == 0) {
    *this = other;
    return;
  }
  first_ns = std::min(first_ns, other.first_ns);
  last_ns = std::max(last_ns, other.last_ns);
  if (other.max > max || (other.max == max && other.max_at_ns < max_at_ns)) {
    max = other.max;
    max_at_ns = other.max_at_ns;
  }
  events += other.events;
  samples += other.samples;
  value += other.value;
}

MetricValue::MetricValue(const Recording& recording, const MetricInfo& metric) {
  switch (metric.source) {
    case MetricSource::Weight: scale_ = 1; return;
    case MetricSource::WeightTimesInterval: scale_ = static_cast<uint64_t>(std::max<int64_t>(recording.info.interval_ns, 0)); return;
    case MetricSource::Amount: {
      // A column no event filled: the quantity was not recorded, every value is 0.
      const std::vector<uint64_t>& column = recording.amounts[metric.column];
      scale_ = 0;
      column_ = metric.column;
      if (!column.empty() && column.size() == recording.events.size()) amounts_ = column.data();
      return;
    }
  }
}

}  // namespace stackscope::analysis

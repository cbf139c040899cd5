#include "analysis/view.h"

#include <algorithm>

namespace stackscope::analysis {

EventScope ownEvents(const Recording& recording, EventPredicate keep) {
  const EventKind kind = recording.eventKinds().front();
  return {kind, &defaultMetric(kind), std::move(keep)};
}

MetricValue::MetricValue(const Recording& recording, const MetricInfo& metric) {
  switch (metric.source) {
    case MetricSource::Weight: scale_ = 1; return;
    case MetricSource::WeightTimesInterval: scale_ = static_cast<uint64_t>(std::max<int64_t>(recording.info.interval_ns, 0)); return;
    case MetricSource::Amount: {
      // A column no event filled: the quantity was not recorded, every value is 0.
      const std::vector<uint64_t>& column = recording.amounts[metric.column];
      scale_ = 0;
      if (!column.empty() && column.size() == recording.events.size()) amounts_ = column.data();
      return;
    }
  }
}

}  // namespace stackscope::analysis

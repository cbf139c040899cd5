#include "analysis/histogram_stats.h"

#include <algorithm>
#include <unordered_map>

namespace stackscope::analysis {

namespace {

// A histogram row's class: its stack's one frame, a pseudo-method named after the class.
std::string classOf(const Recording& rec, uint32_t stack) {
  const auto frames = rec.stack(stack);
  if (frames.empty() || frames.front().method >= rec.methods.size()) return "(unknown)";
  return rec.string(rec.methods[frames.front().method].method_name);
}

}  // namespace

HistogramStats computeHistogramStats(const Recording& rec, const EventScope& scope, bool growth) {
  HistogramStats stats;
  const MetricValue instances(rec, *findMetric(EventKind::Histogram, "instances"));
  const MetricValue bytes(rec, *findMetric(EventKind::Histogram, "bytes"));
  // The histograms the scope keeps, by their time: each histogram's rows share it.
  const auto point = [&](int64_t time_ns) {
    const auto it = std::lower_bound(rec.histograms.begin(), rec.histograms.end(), time_ns,
                                     [](const HistogramPoint& p, int64_t t) { return p.time_ns < t; });
    return it != rec.histograms.end() && it->time_ns == time_ns ? *it : HistogramPoint{time_ns, 0};
  };
  for (const Event& e : rec.events) {
    if (e.kind != EventKind::Histogram || (scope.keep && !scope.keep(e))) continue;
    if (stats.points.empty() || stats.points.back().time_ns != e.time_ns) stats.points.push_back(point(e.time_ns));
  }
  if (stats.points.empty()) return stats;
  const int64_t first = stats.points.front().time_ns;
  const int64_t last = stats.points.back().time_ns;
  stats.from = growth ? stats.points.front() : stats.points.back();
  stats.to = stats.points.back();
  std::unordered_map<uint32_t, ClassGrowth> by_stack;  // a class's stack is written once
  for (size_t i = 0; i < rec.events.size(); ++i) {
    const Event& e = rec.events[i];
    if (e.kind != EventKind::Histogram || (e.time_ns != last && (!growth || e.time_ns != first))) continue;
    if (scope.keep && !scope.keep(e)) continue;
    ClassGrowth& row = by_stack[e.stack];
    if (e.time_ns == last) {
      row.instances += instances(e, i);
      row.bytes += bytes(e, i);
    }
    if (growth && e.time_ns == first) {
      row.instances_from += instances(e, i);
      row.bytes_from += bytes(e, i);
    }
  }
  stats.total.class_name = "(all classes)";
  for (auto& [stack, row] : by_stack) {
    row.class_name = classOf(rec, stack);
    stats.total.instances += row.instances;
    stats.total.bytes += row.bytes;
    stats.total.instances_from += row.instances_from;
    stats.total.bytes_from += row.bytes_from;
    stats.classes.push_back(std::move(row));
  }
  const auto key = [growth](const ClassGrowth& c) { return growth ? c.bytesGrowth() : static_cast<int64_t>(c.bytes); };
  std::sort(stats.classes.begin(), stats.classes.end(), [&](const ClassGrowth& a, const ClassGrowth& b) {
    return key(a) != key(b) ? key(a) > key(b) : a.class_name < b.class_name;
  });
  return stats;
}

}  // namespace stackscope::analysis

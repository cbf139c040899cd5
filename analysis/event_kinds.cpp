#include "analysis/event_kinds.h"

#include <array>

#include "format/records.h"

namespace stackscope::analysis {

namespace {

using enum MetricUnit;
using enum MetricSource;

// A time sample stands for its share of time, and carries what its thread consumed since its
// previous sample (when recorded: format::SampleMetric): the CPU time and the bytes allocated.
const std::vector<MetricInfo> kTimeSampleMetrics{{"samples", Count, Weight},
                                                 {"time", Nanoseconds, WeightTimesInterval},
                                                 {"cpu-time", Nanoseconds, Amount, kCpuTimeColumn, format::kSampleCpuTime},
                                                 {"alloc-bytes", Bytes, Amount, kAllocBytesColumn, format::kSampleAllocBytes}};

// Sampled traces are scaled to estimates of the true totals: a time sample stands for its
// weight times the interval; an allocation sample carries the objects and bytes it stands for.
const std::array<EventKindInfo, kEventKindCount> kKinds{{
    {EventKind::Cpu, "cpu", "CPU time samples", kTimeSampleMetrics},
    {EventKind::Wall, "wall", "wall-clock time samples", kTimeSampleMetrics},
    {EventKind::Alloc, "alloc", "allocation samples",
     {{"samples", Count, Weight}, {"objects", Count, Amount, 0}, {"bytes", Bytes, Amount, 1}}},
    {EventKind::Live, "live", "live objects (sampled allocations not yet collected)",
     {{"samples", Count, Weight}, {"objects", Count, Amount, 0}, {"bytes", Bytes, Amount, 1}}},
    // Time first, the default: where threads wait longest, not where they wait most often.
    {EventKind::Lock, "lock", "waits for locks (contended monitors, java.util.concurrent locks)",
     {{"time", Nanoseconds, Amount, 0}, {"count", Count, Weight}}},
    {EventKind::Wait, "wait", "waits for conditions (Object.wait, park on a condition, queue, future)",
     {{"time", Nanoseconds, Amount, 0}, {"count", Count, Weight}}},
    {EventKind::Exception, "exception", "exceptions thrown", {{"count", Count, Weight}}},
    // A collection is the process's: no thread, no stack.
    {EventKind::Gc, "gc", "garbage collections", {{"count", Count, Weight}, {"time", Nanoseconds, Amount, 0}}, "gc"},
    // One event per class of a class histogram, whose stack is the class's frame.
    {EventKind::Histogram, "histogram", "class histograms (objects in the heap per class)",
     {{"bytes", Bytes, Amount, 1}, {"instances", Count, Amount, 0}}},
}};

}  // namespace

std::span<const EventKindInfo> eventKinds() { return kKinds; }

const EventKindInfo& eventKindInfo(EventKind kind) { return kKinds[static_cast<size_t>(kind)]; }

const char* eventKindName(EventKind kind) { return eventKindInfo(kind).name; }

std::optional<EventKind> parseEventKind(std::string_view name) {
  for (const EventKindInfo& info : kKinds)
    if (name == info.name) return info.kind;
  return std::nullopt;
}

const char* unitName(MetricUnit unit) {
  switch (unit) {
    case Count: return "count";
    case Nanoseconds: return "ns";
    case Bytes: return "bytes";
  }
  return "count";
}

const MetricInfo* findMetric(EventKind kind, std::string_view name) {
  for (const MetricInfo& metric : eventKindInfo(kind).metrics)
    if (name == metric.name) return &metric;
  return nullptr;
}

const MetricInfo& defaultMetric(EventKind kind) {
  const MetricInfo* samples = findMetric(kind, "samples");
  return samples ? *samples : eventKindInfo(kind).metrics.front();
}

std::string metricList(EventKind kind) {
  std::string out;
  for (const MetricInfo& metric : eventKindInfo(kind).metrics)
    out += (out.empty() ? "" : ", ") + std::string(metric.name) + " (" + unitName(metric.unit) + ")";
  return out;
}

}  // namespace stackscope::analysis

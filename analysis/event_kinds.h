// The kinds of events the front-end knows, each with the metrics a view can count it by.
// Every view is written once over events of any kind (view.h): a trace adds a kind here and
// a decoder in the loader, never a copy of a view. A kind is listed here before any trace
// writes it, so its metrics and units are fixed when it arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stackscope::analysis {

enum class EventKind : uint8_t { Cpu, Wall, Alloc, Live, Lock, Wait, Exception, Gc, Histogram };
inline constexpr size_t kEventKindCount = 9;

enum class MetricUnit : uint8_t { Count, Nanoseconds, Bytes };

// Where the value of one event in a metric comes from.
enum class MetricSource : uint8_t {
  Weight,               // the samples or occurrences the event stands for
  WeightTimesInterval,  // a time sample's share of time: its weight times the sampling interval
  Amount,               // a quantity the event carries (Recording::amounts[column]): bytes, ns
};

// Stored quantities per event (the columns of Recording::amounts): alloc has two, objects and
// bytes; time samples two, their thread's CPU time and allocated bytes since its previous sample.
inline constexpr size_t kAmountColumns = 2;
inline constexpr uint8_t kCpuTimeColumn = 0;     // of cpu and wall events
inline constexpr uint8_t kAllocBytesColumn = 1;

// Names some events carry beside their stack (string ids, the columns of Recording::labels):
// what a collection was (its collector) and why (its cause); the class of the object an event
// is about (an allocated object of alloc and live events: "byte[]", "java.lang.String"; any
// kind about an object may fill it). Views group and filter by them like by any other property
// of an event (group_stats.h, --where collector=…, class=…).
enum class Label : uint8_t { Collector, Cause, ObjectClass };
inline constexpr size_t kLabelColumns = 3;

struct MetricInfo {
  const char* name;   // as --metric takes it
  MetricUnit unit;
  MetricSource source;
  uint8_t column = 0;  // with MetricSource::Amount
  // A per-thread delta of time samples (format::SampleMetric bit): recorded only when the
  // recording's info lists it; 0 for the others.
  uint32_t sample_metric = 0;
};

struct EventKindInfo {
  EventKind kind;
  const char* name;  // as --event takes it
  const char* what;  // for people: "CPU time samples"
  std::vector<MetricInfo> metrics;  // the first with the name "samples", or else the first, is the default
  // Set when the kind's events carry no stack (the stack views have nothing to show of them):
  // the view that shows them, as --view takes it.
  const char* stackless_view = nullptr;
};

std::span<const EventKindInfo> eventKinds();
const EventKindInfo& eventKindInfo(EventKind kind);
const char* eventKindName(EventKind kind);
std::optional<EventKind> parseEventKind(std::string_view name);

const char* unitName(MetricUnit unit);  // "count", "ns", "bytes"
// The metric `name` of `kind`, or nullptr when the kind has none of that name.
const MetricInfo* findMetric(EventKind kind, std::string_view name);
const MetricInfo& defaultMetric(EventKind kind);
// "samples (count), time (ns)": what a user can choose from.
std::string metricList(EventKind kind);

}  // namespace stackscope::analysis

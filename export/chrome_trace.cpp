#include "export/chrome_trace.h"

#include <nlohmann/json.hpp>

#include "analysis/names.h"

namespace stackscope::exporting {

namespace {

using nlohmann::json;

constexpr int kProcess = 1;
constexpr int kProcessTrack = 0;  // events of no thread (gc pauses)

double micros(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// The time column of a kind that has one: events whose quantity is a duration. A time
// sample's cpu-time is its thread's CPU since its previous sample, not the sample's length.
const analysis::MetricInfo* durationMetric(analysis::EventKind kind) {
  for (const analysis::MetricInfo& metric : analysis::eventKindInfo(kind).metrics)
    if (metric.source == analysis::MetricSource::Amount && metric.unit == analysis::MetricUnit::Nanoseconds &&
        metric.sample_metric == 0)
      return &metric;
  return nullptr;
}

// "gc: G1 Young Generation (G1 Evacuation Pause)": the kind and the labels the event has.
std::string eventName(const analysis::Recording& recording, analysis::EventKind kind, size_t index) {
  std::string name = analysis::eventKindName(kind);
  std::string labels;
  for (const std::vector<uint32_t>& column : recording.labels) {
    if (column.empty() || column[index] == 0) continue;
    labels += labels.empty() ? recording.string(column[index]) : " (" + recording.string(column[index]) + ")";
  }
  return labels.empty() ? name : name + ": " + labels;
}

}  // namespace

void writeChromeTrace(std::ostream& out, const analysis::Recording& recording, const analysis::EventPredicate& keep,
                      const std::string& title) {
  json events = json::array();
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", kProcess}, {"args", {{"name", title}}}});
  events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", kProcess}, {"tid", kProcessTrack}, {"args", {{"name", "gc"}}}});
  std::vector<bool> named(recording.threads.size(), false);
  auto track = [&](uint32_t thread) {
    if (thread == 0 || thread >= recording.threads.size()) return kProcessTrack;
    if (!named[thread]) {
      named[thread] = true;
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", kProcess}, {"tid", thread},
                        {"args", {{"name", analysis::threadName(recording, thread)}}}});
    }
    return static_cast<int>(thread);
  };
  for (size_t i = 0; i < recording.events.size(); ++i) {
    const analysis::Event& event = recording.events[i];
    const analysis::MetricInfo* duration = durationMetric(event.kind);
    if (!duration || (keep && !keep(event))) continue;
    const std::vector<uint64_t>& column = recording.amounts[duration->column];
    if (column.empty()) continue;
    events.push_back({{"ph", "X"}, {"name", eventName(recording, event.kind, i)}, {"cat", analysis::eventKindName(event.kind)},
                      {"pid", kProcess}, {"tid", track(event.thread)}, {"ts", micros(event.time_ns)},
                      {"dur", micros(static_cast<int64_t>(column[i]))}});
  }
  for (const format::MarkerRecord& marker : recording.markers) {
    if (!recording.window.contains(marker.time_ns)) continue;
    const char* kind = marker.kind == format::MarkerKind::Begin ? " (begin)" : marker.kind == format::MarkerKind::End ? " (end)" : "";
    events.push_back({{"ph", "i"}, {"s", "g"}, {"name", recording.string(marker.name) + kind}, {"cat", "marker"},
                      {"pid", kProcess}, {"tid", track(marker.thread)}, {"ts", micros(marker.time_ns)}});
  }
  out << json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump() << '\n';
}

}  // namespace stackscope::exporting

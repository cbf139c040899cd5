#include "export/report_header.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/gc_stats.h"
#include "analysis/view.h"
#include "common/duration.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

std::string recordingLine(const analysis::Recording& rec) {
  if (!rec.has_info) return "unknown mode (the file has no recording info)";
  return describeRecording(rec.info);
}

bool timeSamples(const ReportOptions& options) {
  return options.event == analysis::EventKind::Cpu || options.event == analysis::EventKind::Wall;
}

// "3 lost (not_in_java 2, gc_active 1)"
std::string lostSamplesLine(const analysis::Recording& rec) {
  std::string line = fmt::format("{} lost", rec.lostTotal());
  std::string reasons;
  for (const auto& [reason, count] : rec.lost)
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", format::lostReasonName(reason), count);
  if (!reasons.empty()) line += " (" + reasons + ")";
  return line;
}

std::string samplesLine(const analysis::Recording& rec, uint64_t samples) {
  return fmt::format("{} taken, {}", samples, lostSamplesLine(rec));
}

// "wall samples (count), 14 in the view"; a time adds how long that is for people.
std::string metricLine(const ReportOptions& options, uint64_t total) {
  std::string line = fmt::format("{} {} ({}), {} in the view", analysis::eventKindName(options.event), options.metric->name,
                                 analysis::unitName(options.metric->unit), total);
  if (options.metric->unit == analysis::MetricUnit::Nanoseconds) line += " (" + formatDuration(static_cast<int64_t>(total)) + ")";
  if (options.metric->unit == analysis::MetricUnit::Bytes) line += " (" + formatBytes(total) + ")";
  return line;
}

// Lost records carry a time and a reason, nothing else: a loss is not a sample, it has no
// thread, stack, state or annotation. A view narrowed by time gets the losses of its time; a
// view narrowed by anything else can only show them beside its samples, unattributed.
bool narrowedBeyondTime(const ReportOptions& options) {
  return !options.filters.empty() || options.resource.find('[') != std::string::npos;
}

bool narrowed(const analysis::Recording& rec, const ReportOptions& options) {
  return narrowedBeyondTime(options) || !rec.window.whole() || !options.snapshot.empty();
}

std::string lostScopeNote(const analysis::Recording& rec, const ReportOptions& options) {
  std::string note = options.covered_ns >= 0 ? "counted from the first interval's start to the last one's end, gaps included"
                     : !options.snapshot.empty() ? "counted for the snapshot's time"
                     : rec.window.whole()        ? "counted for the whole recording"
                                                 : "counted for the window";
  if (narrowedBeyondTime(options)) note += "; not narrowed by the selection: a loss has no thread, stack, state or annotation";
  return note;
}

bool allocationEvents(const ReportOptions& options) {
  return options.event == analysis::EventKind::Alloc || options.event == analysis::EventKind::Live;
}

// How the alloc and live events' objects and bytes were scaled (analysis/alloc_estimate.h).
std::string scalingLine(const analysis::Recording& rec) {
  std::string intervals;
  for (uint64_t interval : rec.alloc_intervals)
    intervals += (intervals.empty() ? "" : ", ") + formatBytes(interval);
  if (intervals.empty()) intervals = "none in the view";
  return "a sampled object of s bytes counts 1/(1-exp(-s/N)) objects and s/(1-exp(-s/N)) bytes, N the mean "
         "sampling interval (" + intervals + ")";
}

// Live objects are those not freed by the end of the window.
std::string liveLine(const analysis::Recording& rec) {
  return "allocated in the window and not freed by its end, " + formatDuration(rec.windowEndNs());
}

// The collections in the window, for the live view: none means every sampled allocation of
// the window is live, whatever the program keeps.
std::string collectionsLine(const analysis::Recording& rec) {
  const auto seen = analysis::collectionsInWindow(rec);
  if (!seen) return "unknown (no gc trace and no status report in the window)";
  if (seen->count == 0 && !seen->at_least)
    return std::string("none ran in the window (") + seen->source + "): no object could be freed, every sampled allocation counts as live";
  if (seen->count == 0)
    return std::string("none between the window's first and last ") + seen->source +
           ": no object could be freed then, the allocations since count as live";
  return fmt::format("{}{} in the window ({})", seen->at_least ? "at least " : "", seen->count, seen->source);
}

Json collectionsJson(const analysis::Recording& rec) {
  const auto seen = analysis::collectionsInWindow(rec);
  if (!seen) return {{"count", nullptr}, {"at_least", false}, {"source", nullptr}};
  return {{"count", seen->count}, {"at_least", seen->at_least}, {"source", seen->source}};
}

}  // namespace

double jsonPercent(uint64_t part, uint64_t whole) { return std::round(analysis::percent(part, whole) * 1e4) / 1e4; }

std::string metricColumn(const ReportOptions& options) {
  std::string column = options.metric->name;
  column[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(column[0])));
  return column;
}

std::string metricText(uint64_t value, const ReportOptions& options) {
  switch (options.metric->unit) {
    case analysis::MetricUnit::Nanoseconds: return value == 0 ? "0" : formatDuration(static_cast<int64_t>(value));
    case analysis::MetricUnit::Bytes: return value == 0 ? "0" : formatBytes(value);
    case analysis::MetricUnit::Count: break;
  }
  return std::to_string(value);
}

void writeTextHeader(std::ostream& out, const analysis::Recording& rec, const ReportOptions& options,
                     const analysis::ViewTotals& totals) {
  writeField(out, "File", options.file);
  writeField(out, "Recording", recordingLine(rec));
  writeField(out, "Duration", formatDuration(rec.end_ns) + (rec.ended ? "" : " (unfinished: up to the last readable event)"));
  if (!rec.window.whole()) {
    const std::string to = rec.window.to_ns == analysis::TimeWindow::kOpen ? "the end" : formatDuration(rec.window.to_ns);
    writeField(out, "Window", fmt::format("{} to {} ({})", formatDuration(rec.window.from_ns), to,
                                          formatDuration(rec.viewDurationNs())));
  }
  if (!options.snapshot.empty()) writeField(out, "Snapshot", options.snapshot + ": " + options.snapshot_definition);
  if (options.covered_ns >= 0) writeField(out, "Covers", formatDuration(options.covered_ns) + " in the selected intervals");
  for (const std::string& filter : options.filters) writeField(out, "Where", filter);
  // A plain "methods" says nothing the table does not; a navigated name is worth copying.
  if (options.resource.find_first_of("[/") != std::string::npos) writeField(out, "View", options.resource);
  // The losses are of time samples (no stack could be taken): beside another kind's events
  // they are said as such, not as a count of those events taken.
  if (timeSamples(options)) {
    writeField(out, "Samples", samplesLine(rec, totals.samples));
  } else {
    writeField(out, "Events", fmt::format("{} {} events in the view", totals.samples, analysis::eventKindName(options.event)));
    if (rec.lostTotal() > 0) writeField(out, "Samples", lostSamplesLine(rec));
  }
  writeField(out, "Metric", metricLine(options, totals.value));
  if (allocationEvents(options)) writeField(out, "Scaling", scalingLine(rec));
  if (options.event == analysis::EventKind::Live) {
    writeField(out, "Live", liveLine(rec));
    writeField(out, "Collections", collectionsLine(rec));
  }
  if (rec.lostTotal() > 0 && narrowed(rec, options)) writeField(out, "Lost", lostScopeNote(rec, options));
  for (const std::string& warning : rec.warnings) writeField(out, "Warning", warning);
}

Json jsonHeader(const analysis::Recording& rec, const ReportOptions& options, std::string_view view,
                const analysis::ViewTotals& totals) {
  Json lost = Json::object();
  for (const auto& [reason, count] : rec.lost) {
    // Reasons from a newer writer all read as "other": add them up rather than overwrite.
    const char* name = format::lostReasonName(reason);
    lost[name] = lost.value(name, uint64_t{0}) + count;
  }
  Json window = {{"from_ns", rec.window.from_ns}, {"to_ns", nullptr}};
  if (rec.window.to_ns != analysis::TimeWindow::kOpen) window["to_ns"] = rec.window.to_ns;
  Json header{
      {"view", view},
      {"event", analysis::eventKindName(options.event)},
      {"metric", options.metric->name},
      {"unit", analysis::unitName(options.metric->unit)},
      {"file", options.file},
      {"mode", rec.has_info ? rec.info.mode : "unknown"},
      {"interval_ns", rec.info.interval_ns},
      {"start_epoch_ns", rec.info.start_epoch_ns},
      {"resource", options.resource},
      {"snapshot", options.snapshot.empty() ? Json(nullptr) : Json(options.snapshot)},
      {"where", options.filters},
      {"duration_ns", options.covered_ns >= 0 ? options.covered_ns : rec.viewDurationNs()},
      {"bytes_read", options.bytes_read},
      {"file_size", options.file_size},
      {"recording_duration_ns", rec.end_ns},
      {"finished", rec.ended},
      {"window", window},
      {"samples", totals.samples},
      {"total", totals.value},
      {"lost", lost},
      {"lost_total", rec.lostTotal()},
      {"warnings", rec.warnings},
      {"notes", options.notes},
  };
  if (narrowed(rec, options))
    header["lost_attribution"] = {{"by_time", true},
                                  {"by_selection", false},
                                  {"gaps_included", options.covered_ns >= 0},
                                  {"note", lostScopeNote(rec, options)}};
  if (!options.unmatched.empty()) header["unmatched"] = options.unmatched;
  if (allocationEvents(options))
    header["scaling"] = {{"objects", "1/(1-exp(-s/N))"}, {"bytes", "s/(1-exp(-s/N))"}, {"sampling_interval_bytes", rec.alloc_intervals},
                         {"note", scalingLine(rec)}};
  if (options.event == analysis::EventKind::Live) {
    header["live_at_ns"] = rec.windowEndNs();
    header["collections"] = collectionsJson(rec);
  }
  return header;
}

}  // namespace stackscope::exporting

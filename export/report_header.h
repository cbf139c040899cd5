// The header every report starts with: which file, what was recorded, over which time, which
// events the view counts and in which metric, how many samples were taken and how many were
// lost and why, and what the reader had to skip.
// A profile that hides its losses misleads, so no view is printed without it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/view.h"

namespace stackscope::exporting {

using Json = nlohmann::ordered_json;  // keeps keys in the order written, for people reading it

// What a report is about, as the command line named it.
struct ReportOptions {
  std::string file;  // the recording's path as the user gave it
  analysis::EventKind event = analysis::EventKind::Cpu;  // what the view counts, and in which metric
  const analysis::MetricInfo* metric = &analysis::defaultMetric(analysis::EventKind::Cpu);
  size_t top = 0;    // rows to print; 0 prints all
  // What narrowed the view (empty when nothing did), printed so a view can be named again.
  std::string resource;             // canonical resource name, e.g. "threads[main]/methods"
  std::string snapshot;             // snapshot name
  std::string snapshot_definition;  // how the snapshot was made
  std::vector<std::string> filters;  // --where expressions, all holding
  int64_t covered_ns = -1;          // time the view covers when not one window; -1: the window's
  std::vector<std::string> notes;   // why the view is empty, unpaired markers… (selection_notes.h)
  uint64_t bytes_read = 0;          // of the recording, to build this view
  uint64_t file_size = 0;
  bool lines = false;               // --lines: rows per method and source line (`method:line`)
  bool kinds = false;               // --kinds: a column with the kind of each row's frames
  std::vector<std::string> unmatched;  // method, class or package patterns that name no method

  size_t rows(size_t available) const { return top == 0 || top > available ? available : top; }
};

// `totals` are the view's: its samples and its value in the metric (the base of every percentage).
void writeTextHeader(std::ostream& out, const analysis::Recording& recording, const ReportOptions& options,
                     const analysis::ViewTotals& totals);
// The header as the first members of a view's JSON object: it names the view, its event kind,
// metric and unit, and gives `total`, the view's value in that unit.
Json jsonHeader(const analysis::Recording& recording, const ReportOptions& options, std::string_view view,
                const analysis::ViewTotals& totals);

// A column or JSON member holding the metric's values: "Samples" / "samples", "Time" / "time"…
std::string metricColumn(const ReportOptions& options);
// One value of the metric in a text table, for people: a count as it is, a time as a
// duration ("124ms", "1.24s"), bytes with their binary unit ("12.0 MiB"). JSON keeps the
// exact number in the unit it states.
std::string metricText(uint64_t value, const ReportOptions& options);
inline std::string metricKey(const ReportOptions& options) { return options.metric->name; }

// Percentages in JSON are rounded to 4 decimals: enough for any comparison, and stable
// output for golden files.
double jsonPercent(uint64_t part, uint64_t whole);

}  // namespace stackscope::exporting

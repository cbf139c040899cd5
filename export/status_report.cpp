#include "export/status_report.h"

#include <fmt/format.h>

#include "common/duration.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using Align = TextTable::Align;

std::string orDash(const std::optional<double>& value, const char* pattern) {
  return value ? fmt::format(fmt::runtime(pattern), *value) : "-";
}

template <typename T>
Json orNull(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

}  // namespace

void writeStatusText(std::ostream& out, const analysis::Recording& rec, const std::vector<analysis::StatusRow>& rows,
                     const analysis::ViewTotals& totals, const ReportOptions& options) {
  writeTextHeader(out, rec, options, totals);
  out << '\n';
  if (rows.empty()) {
    out << "No status report in the selected time.\n";
    return;
  }
  // Say what the percentages are of: a process load of 12.5% means one busy core of eight.
  const std::optional<uint32_t> cpus = rows.back().cpus;
  out << "Process CPU: share of the whole machine" << (cpus ? fmt::format(" ({} CPUs)", *cpus) : std::string())
      << ", 100% = every CPU busy with this process; Cores: CPUs' worth busy with it.\n"
      << "Machine CPU: every process on the machine. GC count and time: cumulative since the JVM started.\n\n";
  // With the gc trace, the pauses of each interval: how many, their time, the longest.
  const bool pauses = rows.back().gc_pauses.has_value();
  if (pauses) out << "Pauses: the gc trace's collections since the report before, their time and the longest.\n\n";
  TextTable table;
  for (const char* column : {"Time", "Process CPU", "Cores", "Machine CPU", "GCs", "GC time", "Heap used",
                             "Heap committed", "Live threads"})
    table.addColumn(column, std::string_view(column) == "Time" ? Align::Left : Align::Right);
  if (pauses)
    for (const char* column : {"Pauses", "Pause time", "Longest"}) table.addColumn(column, Align::Right);
  const size_t shown = options.rows(rows.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::StatusRow& r = rows[i];
    std::vector<std::string> cells{formatDuration(r.time_ns), formatPercent(r.process_cpu_pct_of_machine),
                                   orDash(r.process_cpu_cores, "{:.2f}"),
                                   r.machine_cpu_pct ? formatPercent(*r.machine_cpu_pct) : "-", std::to_string(r.gc_count),
                                   formatDuration(static_cast<int64_t>(r.gc_time_ns)), formatBytes(r.heap_used),
                                   formatBytes(r.heap_committed), std::to_string(r.live_threads)};
    if (pauses) {
      const analysis::EventAggregate sum = r.gc_pauses.value_or(analysis::EventAggregate{});
      cells.push_back(std::to_string(sum.samples));
      cells.push_back(formatDuration(static_cast<int64_t>(sum.value)));
      cells.push_back(formatDuration(static_cast<int64_t>(sum.max)));
    }
    table.addRow(cells);
  }
  table.write(out);
  writeCutNote(out, shown, rows.size(), "status reports");
}

Json statusJson(const analysis::Recording& rec, const std::vector<analysis::StatusRow>& rows,
                const analysis::ViewTotals& totals, const ReportOptions& options) {
  Json json = jsonHeader(rec, options, "status", totals);
  Json reports = Json::array();
  const size_t shown = options.rows(rows.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::StatusRow& r = rows[i];
    reports.push_back({{"time_ns", r.time_ns},
                       {"process_cpu_pct_of_machine", r.process_cpu_pct_of_machine},
                       {"process_cpu_cores", orNull(r.process_cpu_cores)},
                       {"cpus", orNull(r.cpus)},
                       {"machine_cpu_pct", orNull(r.machine_cpu_pct)},
                       {"gc_count", r.gc_count},
                       {"gc_time_ns", r.gc_time_ns},
                       {"heap_used_bytes", r.heap_used},
                       {"heap_committed_bytes", r.heap_committed},
                       {"live_threads", r.live_threads},
                       {"gc_pauses", r.gc_pauses ? Json{{"count", r.gc_pauses->samples},
                                                        {"total_ns", r.gc_pauses->value},
                                                        {"longest_ns", r.gc_pauses->max}}
                                                  : Json(nullptr)}});
  }
  json["status_reports"] = rows.size();
  json["reports"] = std::move(reports);
  return json;
}

}  // namespace stackscope::exporting

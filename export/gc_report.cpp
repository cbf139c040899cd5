#include "export/gc_report.h"

#include <fmt/format.h>

#include "common/duration.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using Align = TextTable::Align;

std::string causeList(const analysis::CollectorStats& c) {
  std::string list;
  for (const auto& [cause, count] : c.causes)
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", count, cause.empty() ? "(cause unknown)" : cause);
  return list;
}

}  // namespace

void writeGcText(std::ostream& out, const analysis::Recording& rec, const analysis::GcStats& stats,
                 const analysis::ViewTotals& totals, const ReportOptions& options) {
  writeTextHeader(out, rec, options, totals);
  out << '\n';
  if (stats.all.count == 0) {
    out << "No garbage collection in the selected time (the gc trace records them: record -e cpu,gc).\n";
    return;
  }
  out << fmt::format("{} collections, {} in total, the longest {}. Time: from the JVM's GC start to its end (the\n"
                     "pause, for a stop-the-world collector); First and Last: when the first and last began.\n\n",
                     stats.all.count, formatDuration(stats.all.total_ns), formatDuration(stats.all.longest_ns));
  TextTable table;
  for (const char* column : {"Collector", "Count", "Total", "Longest", "Mean", "First", "Last", "Causes"})
    table.addColumn(column, std::string_view(column) == "Collector" || std::string_view(column) == "Causes" ? Align::Left
                                                                                                             : Align::Right);
  const size_t shown = options.rows(stats.collectors.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CollectorStats& c = stats.collectors[i];
    const int64_t mean = c.pauses.total_ns / static_cast<int64_t>(c.pauses.count);
    table.addRow({c.collector.empty() ? "(unknown)" : c.collector, std::to_string(c.pauses.count),
                  formatDuration(c.pauses.total_ns), formatDuration(c.pauses.longest_ns), formatDuration(mean),
                  formatDuration(c.first_ns), formatDuration(c.last_ns), causeList(c)});
  }
  table.write(out);
  writeCutNote(out, shown, stats.collectors.size(), "collectors");
}

Json gcJson(const analysis::Recording& rec, const analysis::GcStats& stats, const analysis::ViewTotals& totals,
            const ReportOptions& options) {
  Json json = jsonHeader(rec, options, "gc", totals);
  json["collections"] = stats.all.count;
  json["time_ns"] = stats.all.total_ns;
  json["longest_ns"] = stats.all.longest_ns;
  Json collectors = Json::array();
  const size_t shown = options.rows(stats.collectors.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CollectorStats& c = stats.collectors[i];
    Json causes = Json::array();
    for (const auto& [cause, count] : c.causes) causes.push_back({{"cause", cause}, {"count", count}});
    collectors.push_back({{"collector", c.collector},
                          {"count", c.pauses.count},
                          {"time_ns", c.pauses.total_ns},
                          {"longest_ns", c.pauses.longest_ns},
                          {"longest_at_ns", c.longest_at_ns},
                          {"first_ns", c.first_ns},
                          {"last_ns", c.last_ns},
                          {"causes", std::move(causes)}});
  }
  json["collectors"] = std::move(collectors);
  return json;
}

}  // namespace stackscope::exporting

#include "export/gc_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/duration.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using Align = TextTable::Align;

// A label as the JSON gives it: "" when the recording does not say.
std::string labelValue(const analysis::GroupStat& group) { return group.unset ? std::string() : group.name; }

int64_t ns(uint64_t value) { return static_cast<int64_t>(value); }

std::string causeList(const analysis::CollectorStats& c) {
  std::string list;
  for (const analysis::GroupStat& cause : c.causes)
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", cause.value, cause.unset ? "(cause unknown)" : cause.name);
  return list;
}

}  // namespace

void writeGcText(std::ostream& out, const analysis::Recording& rec, const analysis::GcStats& stats,
                 const analysis::ViewTotals& totals, const ReportOptions& options) {
  writeTextHeader(out, rec, options, totals);
  out << '\n';
  if (stats.all.events == 0) {
    out << "No garbage collection in the selected time (the gc trace records them: record -e cpu,gc).\n";
    return;
  }
  out << fmt::format("{} collections, {} in total, the longest {}. Time: from the JVM's GC start to its end (the\n"
                     "pause, for a stop-the-world collector); First and Last: when the first and last began.\n\n",
                     stats.all.samples, formatDuration(ns(stats.all.value)), formatDuration(ns(stats.all.max)));
  TextTable table;
  for (const char* column : {"Collector", "Count", "Total", "Longest", "Mean", "First", "Last", "Causes"})
    table.addColumn(column, std::string_view(column) == "Collector" || std::string_view(column) == "Causes" ? Align::Left
                                                                                                             : Align::Right);
  const size_t shown = options.rows(stats.collectors.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CollectorStats& c = stats.collectors[i];
    const analysis::GroupStat& p = c.pauses;
    const int64_t mean = ns(p.value / std::max<uint64_t>(p.samples, 1));
    table.addRow({p.unset ? "(unknown)" : p.name, std::to_string(p.samples), formatDuration(ns(p.value)),
                  formatDuration(ns(p.max)), formatDuration(mean), formatDuration(p.first_ns), formatDuration(p.last_ns),
                  causeList(c)});
  }
  table.write(out);
  writeCutNote(out, shown, stats.collectors.size(), "collectors");
}

Json gcJson(const analysis::Recording& rec, const analysis::GcStats& stats, const analysis::ViewTotals& totals,
            const ReportOptions& options) {
  Json json = jsonHeader(rec, options, "gc", totals);
  json["collections"] = stats.all.samples;
  json["time_ns"] = stats.all.value;
  json["longest_ns"] = stats.all.max;
  Json collectors = Json::array();
  const size_t shown = options.rows(stats.collectors.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CollectorStats& c = stats.collectors[i];
    Json causes = Json::array();
    for (const analysis::GroupStat& cause : c.causes) causes.push_back({{"cause", labelValue(cause)}, {"count", cause.value}});
    const analysis::GroupStat& p = c.pauses;
    collectors.push_back({{"collector", labelValue(p)},
                          {"count", p.samples},
                          {"time_ns", p.value},
                          {"longest_ns", p.max},
                          {"longest_at_ns", p.max_at_ns},
                          {"first_ns", p.first_ns},
                          {"last_ns", p.last_ns},
                          {"causes", std::move(causes)}});
  }
  json["collectors"] = std::move(collectors);
  return json;
}

}  // namespace stackscope::exporting

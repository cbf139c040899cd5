#include "export/histogram_report.h"

#include <fmt/format.h>

#include "common/duration.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using Align = TextTable::Align;

std::string signedCount(int64_t n) { return n > 0 ? fmt::format("+{}", n) : std::to_string(n); }

std::string signedBytes(int64_t n) {
  const std::string size = formatBytes(static_cast<uint64_t>(n < 0 ? -n : n));
  return n > 0 ? "+" + size : n < 0 ? "-" + size : size;
}

const char* viewName(bool growth) { return growth ? "histogram-growth" : "histogram"; }

}  // namespace

void writeHistogramText(std::ostream& out, const analysis::Recording& rec, const analysis::HistogramStats& stats,
                        bool growth, const analysis::ViewTotals& totals, const ReportOptions& options) {
  writeTextHeader(out, rec, options, totals);
  out << '\n';
  if (stats.points.empty()) {
    out << "No class histogram in the selection (the agent takes them with histo=10s or histo=gc:N).\n";
    return;
  }
  if (growth) {
    out << fmt::format("Growth per class from the histogram at {} to the one at {} ({} histograms in the selection;\n"
                       "the first and the last are compared). Objects in the heap, garbage not yet collected included.\n\n",
                       formatDuration(stats.from.time_ns), formatDuration(stats.to.time_ns), stats.points.size());
  } else {
    out << fmt::format("Objects in the heap per class at {} (the last of {} histograms in the selection; garbage not\n"
                       "yet collected included). The heap walk held the VM stopped for {}.\n\n",
                       formatDuration(stats.to.time_ns), stats.points.size(), formatDuration(stats.to.pause_ns));
  }
  TextTable table;
  table.addColumn("Class", Align::Left);
  const std::vector<const char*> columns = growth ? std::vector<const char*>{"Instances", "Growth", "Bytes", "Bytes growth"}
                                                  : std::vector<const char*>{"Instances", "Bytes"};
  for (const char* column : columns) table.addColumn(column, Align::Right);
  const auto row = [&](const analysis::ClassGrowth& c) {
    if (growth) {
      table.addRow({c.class_name, std::to_string(c.instances), signedCount(c.instancesGrowth()), formatBytes(c.bytes),
                    signedBytes(c.bytesGrowth())});
    } else {
      table.addRow({c.class_name, std::to_string(c.instances), formatBytes(c.bytes)});
    }
  };
  const size_t shown = options.rows(stats.classes.size());
  for (size_t i = 0; i < shown; ++i) row(stats.classes[i]);
  row(stats.total);
  table.write(out);
  writeCutNote(out, shown, stats.classes.size(), "classes");
}

Json histogramJson(const analysis::Recording& rec, const analysis::HistogramStats& stats, bool growth,
                   const analysis::ViewTotals& totals, const ReportOptions& options) {
  Json json = jsonHeader(rec, options, viewName(growth), totals);
  const bool any = !stats.points.empty();
  Json points = Json::array();
  for (const analysis::HistogramPoint& p : stats.points) points.push_back({{"time_ns", p.time_ns}, {"pause_ns", p.pause_ns}});
  json["histograms"] = std::move(points);  // every one in the selection: --from/--to pick among them
  if (growth) json["from_ns"] = any ? Json(stats.from.time_ns) : Json(nullptr);
  json["time_ns"] = any ? Json(stats.to.time_ns) : Json(nullptr);
  json["pause_ns"] = any ? Json(stats.to.pause_ns) : Json(nullptr);
  const auto item = [growth](const analysis::ClassGrowth& c) {
    Json j = {{"class", c.class_name}, {"instances", c.instances}, {"bytes", c.bytes}};
    if (growth) {
      j["instances_from"] = c.instances_from;
      j["bytes_from"] = c.bytes_from;
      j["instances_growth"] = c.instancesGrowth();
      j["bytes_growth"] = c.bytesGrowth();
    }
    return j;
  };
  Json classes = Json::array();
  const size_t shown = options.rows(stats.classes.size());
  for (size_t i = 0; i < shown; ++i) classes.push_back(item(stats.classes[i]));
  json["classes"] = std::move(classes);
  json["all_classes"] = item(stats.total);
  return json;
}

}  // namespace stackscope::exporting

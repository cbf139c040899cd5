#include "export/diff_report.h"

#include <fmt/format.h>

#include <cmath>

#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

std::string points(double change) { return fmt::format("{:+.2f}", change); }

// Rounded as jsonPercent rounds the shares of the other views: stable output for comparisons.
double rounded(double percent) { return std::round(percent * 1e4) / 1e4; }

size_t rowsShown(const analysis::MethodDiff& diff, const DiffOptions& options) {
  return options.top == 0 || options.top > diff.methods.size() ? diff.methods.size() : options.top;
}

}  // namespace

void writeDiffText(std::ostream& out, const analysis::MethodDiff& diff, const DiffOptions& options) {
  const std::string metric = std::string(options.metric->name) + " (" + analysis::unitName(options.metric->unit) + ")";
  writeField(out, "Base", options.base_file + ": " + std::to_string(diff.base.samples) + " events, " +
                              std::to_string(diff.base.value) + " " + metric);
  writeField(out, "New", options.new_file + ": " + std::to_string(diff.next.samples) + " events, " +
                             std::to_string(diff.next.value) + " " + metric);
  writeField(out, "Metric", std::string(analysis::eventKindName(options.event)) + " " + metric +
                                ", as shares of each side's total; changes in percentage points");
  out << '\n';
  TextTable table;
  for (const char* header : {"Self chg", "Total chg", "Self base", "Self new", "Total base", "Total new"})
    table.addColumn(header, TextTable::Align::Right);
  table.addColumn("Method", TextTable::Align::Left);
  const size_t rows = rowsShown(diff, options);
  for (size_t i = 0; i < rows; ++i) {
    const analysis::MethodChange& m = diff.methods[i];
    table.addRow({points(m.selfChange()), points(m.totalChange()), formatPercent(m.base_self), formatPercent(m.new_self),
                  formatPercent(m.base_total), formatPercent(m.new_total), m.method});
  }
  table.write(out);
  writeCutNote(out, rows, diff.methods.size(), "methods");
}

Json diffJson(const analysis::MethodDiff& diff, const DiffOptions& options) {
  Json methods = Json::array();
  const size_t rows = rowsShown(diff, options);
  for (size_t i = 0; i < rows; ++i) {
    const analysis::MethodChange& m = diff.methods[i];
    methods.push_back({{"method", m.method},
                       {"base_self", rounded(m.base_self)},
                       {"new_self", rounded(m.new_self)},
                       {"self_change", rounded(m.selfChange())},
                       {"base_total", rounded(m.base_total)},
                       {"new_total", rounded(m.new_total)},
                       {"total_change", rounded(m.totalChange())}});
  }
  return {{"view", "diff"},
          {"event", analysis::eventKindName(options.event)},
          {"metric", options.metric->name},
          {"unit", analysis::unitName(options.metric->unit)},
          {"base", {{"file", options.base_file}, {"samples", diff.base.samples}, {"total", diff.base.value}}},
          {"new", {{"file", options.new_file}, {"samples", diff.next.samples}, {"total", diff.next.value}}},
          {"methods", std::move(methods)}};
}

}  // namespace stackscope::exporting

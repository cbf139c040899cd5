#include "export/vthreads_report.h"

#include <fmt/format.h>

#include "analysis/names.h"
#include "export/json_report.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

// The stack's frames, innermost first, named as the other views name methods (lambdas
// without their run-to-run addresses): `display` in text (with parameters where overloads
// need them), `name` in JSON (as the methods view's `method`).
std::vector<std::string> frameNames(const analysis::Recording& rec, const analysis::MethodNames& methods,
                                    uint32_t stack, std::string analysis::MethodName::*which) {
  std::vector<std::string> names;
  for (const format::Frame& frame : rec.stack(stack)) names.push_back(methods[frame.method].*which);
  return names;
}

// How many frames of a stack the text shows: the top of a stack says what it does; the JSON
// has them all.
constexpr size_t kTextFrames = 4;

std::string stackLabel(const std::vector<std::string>& frames) {
  if (frames.empty()) return "(no Java frames)";
  std::string label;
  for (size_t i = 0; i < frames.size() && i < kTextFrames; ++i) label += (i ? " <- " : "") + frames[i];
  if (frames.size() > kTextFrames) label += fmt::format(" <- ... ({} more)", frames.size() - kTextFrames);
  return label;
}

}  // namespace

void writeVirtualThreadsText(std::ostream& out, const analysis::Recording& rec, const analysis::VirtualThreadStats& stats,
                             const ReportOptions& options) {
  writeTextHeader(out, rec, options, stats.totals);
  writeField(out, "Virtual", fmt::format("{} virtual threads on {} carriers, {} {} ({})", stats.threads,
                                         stats.carriers, stats.value, metricKey(options),
                                         formatPercent(analysis::percent(stats.value, stats.totals.value))));
  std::string states;
  for (size_t s = 0; s < stats.states.size(); ++s) {
    if (stats.states[s] == 0) continue;
    states += fmt::format("{}{} {}", states.empty() ? "" : ", ",
                          format::threadStateName(static_cast<format::ThreadState>(s)), stats.states[s]);
  }
  writeField(out, "States", states.empty() ? "none" : states);
  out << '\n';
  TextTable table;
  table.addColumn(metricColumn(options), TextTable::Align::Right);
  table.addColumn("Pct", TextTable::Align::Right);
  table.addColumn("Threads", TextTable::Align::Right);
  table.addColumn("Stack", TextTable::Align::Left);
  const size_t shown = options.rows(stats.stacks.size());
  const analysis::MethodNames methods(rec);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::VirtualStack& hot = stats.stacks[i];
    table.addRow({metricText(hot.value, options), formatPercent(analysis::percent(hot.value, stats.totals.value)),
                  std::to_string(hot.threads),
                  stackLabel(frameNames(rec, methods, hot.stack, &analysis::MethodName::display))});
  }
  table.write(out);
  writeCutNote(out, shown, stats.stacks.size(), "stacks");
}

Json virtualThreadsJson(const analysis::Recording& rec, const analysis::VirtualThreadStats& stats,
                        const ReportOptions& options) {
  Json out = jsonHeader(rec, options, "vthreads", stats.totals);
  out["virtual_threads"] = stats.threads;
  out["carriers"] = stats.carriers;
  out["virtual_" + metricKey(options)] = stats.value;
  out["states"] = stateCounts(stats.states);
  Json stacks = Json::array();
  const size_t shown = options.rows(stats.stacks.size());
  const analysis::MethodNames methods(rec);
  for (size_t i = 0; i < shown; ++i) {
    const analysis::VirtualStack& hot = stats.stacks[i];
    stacks.push_back({{metricKey(options), hot.value},
                      {"pct", jsonPercent(hot.value, stats.totals.value)},
                      {"threads", hot.threads},
                      {"frames", frameNames(rec, methods, hot.stack, &analysis::MethodName::name)}});
  }
  out["stacks"] = std::move(stacks);
  return out;
}

}  // namespace stackscope::exporting

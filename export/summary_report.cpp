#include "export/summary_report.h"

#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using analysis::percent;
using analysis::Summary;
using analysis::SummaryPart;
using Align = TextTable::Align;

// Recordings of older agents, or of an attached one, do not say which thread started which.
constexpr const char* kNoThreadParents = "not in this recording (recorded from the JVM's start by agents since ThreadParent)";
constexpr const char* kNoJars = "some classes are not split by module or jar: the recording does not name their library (agents before the Method record's code_source, or a class with neither a named module nor a code source)";

void writeParts(std::ostream& out, const char* title, const std::vector<SummaryPart>& parts, uint64_t whole,
                const char* what) {
  if (parts.empty()) return;
  out << '\n' << title << '\n';
  TextTable table;
  table.addColumn("Self%", Align::Right);
  table.addColumn("Total%", Align::Right);
  table.addColumn(what, Align::Left);
  for (const SummaryPart& p : parts) table.addRow({formatPercent(percent(p.self, whole)), formatPercent(percent(p.total, whole)), p.name});
  table.write(out);
}

Json partsJson(const std::vector<SummaryPart>& parts, uint64_t whole) {
  Json out = Json::array();
  for (const SummaryPart& p : parts)
    out.push_back({{"name", p.name}, {"self", p.self}, {"total", p.total}, {"self_pct", jsonPercent(p.self, whole)},
                   {"total_pct", jsonPercent(p.total, whole)}});
  return out;
}

}  // namespace

void writeSummaryText(std::ostream& out, const analysis::Recording& recording, const ReportOptions& options,
                      const Summary& s) {
  writeTextHeader(out, recording, options, s.totals);
  const uint64_t whole = s.totals.value;
  out << "\nCall graph:        " << s.methods << " methods, " << s.calls << " calls (caller -> callee), "
      << s.recursive_calls << " of them recursive: " << formatPercent(percent(s.recursive_value, s.call_value))
      << " of the calls' value\n";
  out << "Deepest recursion: ";
  if (s.deepest_recursion_method.empty()) out << "none\n";
  else out << s.deepest_recursion_method << ", " << s.deepest_recursion << " times on one stack\n";
  out << "Threads:           " << s.threads;
  if (s.thread_tree.empty()) out << "; which started which: " << kNoThreadParents;
  out << "\n";
  if (!s.hottest_path.empty()) {
    out << "\nHottest path (the hottest callee at each step, while it holds 1% or more)\n";
    TextTable path;
    path.addColumn("Total%", Align::Right);
    path.addColumn("Method", Align::Left);
    for (size_t i = 0; i < s.hottest_path.size(); ++i)
      path.addRow({formatPercent(percent(s.hottest_path[i].total, whole)), std::string(2 * i, ' ') + s.hottest_path[i].name});
    path.write(out);
  }
  writeParts(out, "Hottest methods", s.hottest_methods, whole, "Method");
  if (!s.hottest_calls.empty()) {
    out << "\nHottest calls\n";
    TextTable calls;
    calls.addColumn("Value%", Align::Right);
    calls.addColumn("Count", Align::Right);
    calls.addColumn("Recursive%", Align::Right);
    calls.addColumn("Caller -> callee", Align::Left);
    for (const auto& c : s.hottest_calls)
      calls.addRow({formatPercent(percent(c.value, whole)), std::to_string(c.samples), formatPercent(percent(c.recursive, c.value)),
                    c.caller + " -> " + c.callee});
    calls.write(out);
  }
  writeParts(out, "Hottest threads", s.hottest_threads, whole, "Thread");
  if (!s.thread_tree.empty()) {
    out << "\nWhich thread started which\n";
    TextTable tree;
    tree.addColumn("Own%", Align::Right);
    tree.addColumn("With started%", Align::Right);
    tree.addColumn("Thread (started at)", Align::Left);
    for (const analysis::SummaryThread& t : s.thread_tree)
      tree.addRow({formatPercent(percent(t.value, whole)), formatPercent(percent(t.below, whole)),
                   std::string(2 * t.depth, ' ') + t.name + (t.started_at.empty() ? "" : "  (" + t.started_at + ")")});
    tree.write(out);
  }
  writeParts(out, "Libraries", s.libraries, whole, "Library");
  if (s.libraries_unnamed) out << "(" << kNoJars << ")\n";
  writeParts(out, "Packages", s.packages, whole, "Package");
}

Json summaryJson(const analysis::Recording& recording, const ReportOptions& options, const Summary& s) {
  Json out = jsonHeader(recording, options, "summary", s.totals);
  const uint64_t whole = s.totals.value;
  Json calls = Json::array();
  for (const auto& c : s.hottest_calls)
    calls.push_back({{"caller", c.caller}, {"callee", c.callee}, {"value", c.value}, {"count", c.samples},
                     {"recursive", c.recursive}, {"value_pct", jsonPercent(c.value, whole)}});
  Json path = Json::array();
  for (const auto& step : s.hottest_path)
    path.push_back({{"method", step.name}, {"total", step.total}, {"total_pct", jsonPercent(step.total, whole)}});
  out["graph"] = {{"methods", s.methods}, {"calls", s.calls}, {"recursive_calls", s.recursive_calls},
                  {"calls_value", s.call_value}, {"recursive_value", s.recursive_value}};
  out["deepest_recursion"] = s.deepest_recursion_method.empty()
                                 ? Json(nullptr)
                                 : Json{{"method", s.deepest_recursion_method}, {"times", s.deepest_recursion}};
  out["hottest_path"] = std::move(path);
  out["hottest_methods"] = partsJson(s.hottest_methods, whole);
  out["hottest_calls"] = std::move(calls);
  Json tree = Json::array();
  for (const analysis::SummaryThread& t : s.thread_tree)
    tree.push_back({{"thread", t.name}, {"depth", t.depth}, {"value", t.value}, {"with_started", t.below},
                    {"started_at", t.started_at.empty() ? Json(nullptr) : Json(t.started_at)}});
  out["threads"] = {{"count", s.threads}, {"hottest", partsJson(s.hottest_threads, whole)}};
  if (s.thread_tree.empty()) {
    out["threads"]["tree"] = nullptr;
    out["threads"]["tree_note"] = kNoThreadParents;
  } else {
    out["threads"]["tree"] = std::move(tree);
  }
  out["libraries"] = partsJson(s.libraries, whole);
  if (s.libraries_unnamed) out["libraries_note"] = kNoJars;
  out["packages"] = partsJson(s.packages, whole);
  return out;
}

}  // namespace stackscope::exporting

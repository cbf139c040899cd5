#include "cli/report_views.h"

#include "analysis/call_graph.h"
#include "analysis/call_tree.h"
#include "analysis/gc_stats.h"
#include "analysis/histogram_stats.h"
#include "analysis/method_stats.h"
#include "analysis/status_series.h"
#include "analysis/thread_stats.h"
#include "analysis/vthread_stats.h"
#include "cli/command.h"
#include "export/gc_report.h"
#include "export/graph_report.h"
#include "export/histogram_report.h"
#include "export/json_report.h"
#include "export/navigation_report.h"
#include "export/status_report.h"
#include "export/text_report.h"
#include "export/vthreads_report.h"

namespace stackscope::cli {

namespace {

using analysis::ResourceType;

// The classes of exception events are the classes they threw.
analysis::GroupBy groupOf(ResourceType type, analysis::EventKind kind) {
  if (type == ResourceType::Classes && kind == analysis::EventKind::Exception) return analysis::GroupBy::Exception;
  switch (type) {
    case ResourceType::Users: return analysis::GroupBy::User;
    case ResourceType::Sessions: return analysis::GroupBy::Session;
    case ResourceType::Requests: return analysis::GroupBy::Request;
    case ResourceType::Applications: return analysis::GroupBy::Application;
    case ResourceType::Components: return analysis::GroupBy::Component;
    case ResourceType::Exceptions: return analysis::GroupBy::Exception;
    case ResourceType::Classes:
    case ResourceType::Allocations: return analysis::GroupBy::Class;
    case ResourceType::Ages: return analysis::GroupBy::Age;
    case ResourceType::Locks: return analysis::GroupBy::Class;
    case ResourceType::Owners: return analysis::GroupBy::Owner;
    default: return analysis::GroupBy::State;
  }
}

}  // namespace

analysis::SampleRows sampleRowsFor(const analysis::Selection& selection) {
  const ResourceType view = selection.resource.view().type;
  const bool sums_per_stack = view == ResourceType::Methods || view == ResourceType::Graph;
  return sums_per_stack && !selection.narrowsEvents() ? analysis::SampleRows::Folded : analysis::SampleRows::Kept;
}

void writeView(std::ostream& out, const analysis::Recording& rec, const analysis::Selection& selection,
               const exporting::ReportOptions& options, bool json) {
  // One pass: the whole resource name, snapshot and filter are one predicate, over the
  // events of one kind valued in one metric.
  const analysis::EventScope scope{options.event, options.metric, analysis::selectionPredicate(selection, rec)};
  const ResourceType view = selection.resource.view().type;
  switch (view) {
    case ResourceType::Methods: {
      const auto stats = analysis::computeMethodStats(rec, scope, options.lines);
      if (json) exporting::writeJson(out, exporting::methodsJson(rec, stats, options));
      else exporting::writeMethodsText(out, rec, stats, options);
      return;
    }
    case ResourceType::Tree: {
      const auto tree = analysis::buildCallTree(rec, scope, options.lines);
      if (json) exporting::writeJson(out, exporting::treeJson(rec, tree, options));
      else exporting::writeTreeText(out, rec, tree, options);
      return;
    }
    case ResourceType::Graph: {
      const auto graph = analysis::callGraph(analysis::stackProfile(rec, scope, options.lines));
      if (json) exporting::writeJson(out, exporting::graphJson(rec, graph, options));
      else exporting::writeGraphText(out, rec, graph, options);
      return;
    }
    case ResourceType::Threads: {
      const auto stats = analysis::computeThreadStats(rec, scope);
      if (json) exporting::writeJson(out, exporting::threadsJson(rec, stats, options));
      else exporting::writeThreadsText(out, rec, stats, options);
      return;
    }
    case ResourceType::VThreads: {
      const auto stats = analysis::computeVirtualThreadStats(rec, scope);
      if (json) exporting::writeJson(out, exporting::virtualThreadsJson(rec, stats, options));
      else exporting::writeVirtualThreadsText(out, rec, stats, options);
      return;
    }
    case ResourceType::Callers: {
      const std::vector<std::string> focus = selection.resource.selected(ResourceType::Methods);
      if (focus.empty())
        throw UserError("the callers view needs a method: name it first, e.g. --view 'methods[pkg.Class.method]/callers'");
      const auto tree = analysis::buildCallers(rec, focus, scope, options.lines);
      if (json) exporting::writeJson(out, exporting::callersJson(rec, tree, focus, options));
      else exporting::writeCallersText(out, rec, tree, focus, options);
      return;
    }
    case ResourceType::Status: {
      const analysis::ViewTotals totals = analysis::forEachEvent(rec, scope, [](const analysis::Event&, uint64_t) {});
      const auto rows = analysis::statusSeries(rec, selection, scope.keep);
      if (json) exporting::writeJson(out, exporting::statusJson(rec, rows, totals, options));
      else exporting::writeStatusText(out, rec, rows, totals, options);
      return;
    }
    case ResourceType::Gc: {
      const analysis::ViewTotals totals = analysis::forEachEvent(rec, scope, [](const analysis::Event&, uint64_t) {});
      const auto stats = analysis::computeGcStats(rec, options.event, scope.keep);
      if (json) exporting::writeJson(out, exporting::gcJson(rec, stats, totals, options));
      else exporting::writeGcText(out, rec, stats, totals, options);
      return;
    }
    case ResourceType::Histogram:
    case ResourceType::HistogramGrowth: {
      const bool growth = view == ResourceType::HistogramGrowth;
      const analysis::ViewTotals totals = analysis::forEachEvent(rec, scope, [](const analysis::Event&, uint64_t) {});
      const auto stats = analysis::computeHistogramStats(rec, scope, growth);
      if (json) exporting::writeJson(out, exporting::histogramJson(rec, stats, growth, totals, options));
      else exporting::writeHistogramText(out, rec, stats, growth, totals, options);
      return;
    }
    default: {
      // The allocations of a selection are shown by class: 'methods[X]/allocations'.
      const std::string name = analysis::resourceTypeName(view == ResourceType::Allocations ? ResourceType::Classes : view);
      const auto stats = analysis::computeGroupStats(rec, groupOf(view, options.event), scope);
      if (json) exporting::writeJson(out, exporting::groupJson(rec, stats, name, options));
      else exporting::writeGroupText(out, rec, stats, name, options);
    }
  }
}

}  // namespace stackscope::cli

#include "cli/selection_args.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "analysis/recording_set.h"
#include "analysis/names.h"
#include "analysis/selection_notes.h"
#include "cli/command.h"

namespace stackscope::cli {

namespace {

analysis::TimeWindow windowOf(const SelectionArgs& args) {
  analysis::TimeWindow window;
  if (!args.from.empty()) window.from_ns = parseDurationOption(args.from, "--from");
  if (!args.to.empty()) window.to_ns = parseDurationOption(args.to, "--to");
  if (window.to_ns <= window.from_ns) throw UserError("--to must be later than --from");
  return window;
}

std::string kindList(const std::vector<analysis::EventKind>& kinds) {
  std::string out;
  for (analysis::EventKind kind : kinds) out += (out.empty() ? "" : ", ") + std::string(analysis::eventKindName(kind));
  return out;
}

// Without --event: the kind the resource name is about when the recording has it: exception
// events for exceptions (only they have a thrown class), collections for gc, alloc events for
// classes and allocations (the allocated objects' classes), live events for ages (the leak
// hunter's view), lock events (else wait events) for locks and owners, class histograms for the
// histogram views (which a recording without them cannot show); else the recording's own kind.
analysis::EventKind defaultKind(const analysis::Selection& selection, const std::vector<analysis::EventKind>& kinds) {
  const auto has = [&](analysis::EventKind kind) { return std::find(kinds.begin(), kinds.end(), kind) != kinds.end(); };
  const analysis::ResourceType view = selection.resource.view().type;
  if (view == analysis::ResourceType::Histogram || view == analysis::ResourceType::HistogramGrowth) {
    if (!has(analysis::EventKind::Histogram))
      throw UserError("--view " + std::string(analysis::resourceTypeName(view)) +
                      ": the recording has no class histogram (the agent takes them with histo=10s or histo=gc:N)");
    return analysis::EventKind::Histogram;
  }
  for (const analysis::ResourceElement& element : selection.resource.elements) {
    switch (element.type) {
      case analysis::ResourceType::Exceptions:
        if (has(analysis::EventKind::Exception)) return analysis::EventKind::Exception;
        break;
      case analysis::ResourceType::Gc:
        if (has(analysis::EventKind::Gc)) return analysis::EventKind::Gc;
        break;
      case analysis::ResourceType::Classes:
      case analysis::ResourceType::Allocations:
        if (has(analysis::EventKind::Alloc)) return analysis::EventKind::Alloc;
        break;
      case analysis::ResourceType::Ages:
        if (has(analysis::EventKind::Live)) return analysis::EventKind::Live;
        break;
      case analysis::ResourceType::Locks:
      case analysis::ResourceType::Owners:
        if (has(analysis::EventKind::Lock)) return analysis::EventKind::Lock;
        if (has(analysis::EventKind::Wait)) return analysis::EventKind::Wait;
        break;
      default: break;
    }
  }
  return kinds.front();
}

}  // namespace

void addSelectionOptions(CLI::App& cmd, SelectionArgs& args) {
  cmd.add_option("file", args.file,
                 "The recording (.ssr); with its rotated parts beside it (run.ssr, run-1.ssr, ...), all of them")
      ->required();
  cmd.add_option("--from", args.from, "Start of the window (offset from the recording's start)");
  cmd.add_option("--to", args.to, "End of the window (offset from the recording's start)");
  cmd.add_option("--snapshot", args.snapshot, "A saved snapshot, a begin/end marker pair NAME, or A..B between markers");
  cmd.add_option("--where", args.where, "A logical filter on the events (see `stackscope report --help`)");
  cmd.add_option("--event", args.event, "The kind of events to count: cpu, wall, alloc, … (default: the recording's own)");
  cmd.add_option("--metric", args.metric, "What to count them by: samples, time, cpu-time, alloc-bytes, bytes, … (default samples)");
}

void checkSelectionArgs(const SelectionArgs& args) {
  struct stat st {};
  // A rotated recording whose first file maxfiles= deleted is still read from its other parts.
  const std::string first = analysis::recordingParts(args.file).front();
  if (::stat(first.c_str(), &st) != 0) throw UserError("cannot open '" + args.file + "': " + std::strerror(errno));
  if (args.event.empty() || analysis::parseEventKind(args.event)) return;
  std::vector<analysis::EventKind> known;
  for (const analysis::EventKindInfo& info : analysis::eventKinds()) known.push_back(info.kind);
  throw UserError("--event '" + args.event + "': no such event kind (known: " + kindList(known) + ")");
}

analysis::Selection resolveSelectionArgs(const SelectionArgs& args, const std::string& resource) {
  try {
    // A selection of no time is not an error: the report says why it is empty (a note).
    return analysis::resolveSelection(args.file, {args.snapshot, windowOf(args), args.where, resource});
  } catch (const analysis::SnapshotError& e) {
    throw UserError(e.what());
  } catch (const analysis::WhereError& e) {
    throw UserError(e.what());
  } catch (const analysis::ResourceNameError& e) {
    throw UserError(std::string("--view: ") + e.what());
  }
}

ChosenEvents chooseEvents(const SelectionArgs& args, const analysis::Selection& selection,
                          const analysis::Recording& recording) {
  const std::vector<analysis::EventKind> kinds = recording.eventKinds();
  ChosenEvents chosen;
  chosen.kind = args.event.empty() ? defaultKind(selection, kinds) : *analysis::parseEventKind(args.event);
  if (std::find(kinds.begin(), kinds.end(), chosen.kind) == kinds.end())
    throw UserError("--event " + args.event + ": the recording has no " + args.event + " events; it has: " + kindList(kinds) +
                    (chosen.kind == analysis::EventKind::Live ? " (record -e live follows the sampled objects' deaths)" : ""));
  // The gc view sums collections' time: its longest and mean pauses are times.
  const bool gc_view = selection.resource.view().type == analysis::ResourceType::Gc;
  if (gc_view && ((!args.event.empty() && chosen.kind != analysis::EventKind::Gc) || (!args.metric.empty() && args.metric != "time")))
    throw UserError("the gc view counts gc events in time: leave out --event and --metric, or give --event gc --metric time");
  const bool gc_time = gc_view && chosen.kind == analysis::EventKind::Gc && args.metric.empty();
  const std::string metric = gc_time ? "time" : args.metric;
  chosen.metric = metric.empty() ? &analysis::defaultMetric(chosen.kind) : analysis::findMetric(chosen.kind, metric);
  if (!chosen.metric)
    throw UserError("--metric " + args.metric + ": " + analysis::eventKindName(chosen.kind) + " events have no metric '" +
                    args.metric + "'; they have: " + analysis::metricList(chosen.kind));
  // A per-thread delta the samples do not carry would show zeros everywhere: say why instead.
  if (chosen.metric->sample_metric != 0 && !(recording.info.sample_metrics & chosen.metric->sample_metric))
    throw UserError("--metric " + args.metric + ": the samples of this recording do not carry " + args.metric +
                    " (record --metrics cpu,alloc records them; a JVM that does not count allocation per thread has "
                    "no alloc-bytes; stackscope info lists the metrics a recording has)");
  return chosen;
}

std::unique_ptr<SelectedEvents> selectEvents(const SelectionArgs& args) {
  checkSelectionArgs(args);
  auto selected = std::make_unique<SelectedEvents>();
  selected->selection = resolveSelectionArgs(args, "");
  selected->recording = analysis::loadRecordingSet(args.file, selected->selection.hull());
  const ChosenEvents chosen = chooseEvents(args, selected->selection, selected->recording);
  selected->scope = {chosen.kind, chosen.metric, analysis::selectionPredicate(selected->selection, selected->recording)};
  selected->notes = analysis::selectionNotes(selected->selection, selected->recording, chosen.kind);
  const analysis::MethodNames names(selected->recording);
  for (const std::string& pattern : analysis::unmatchedMethodPatterns(selected->selection, selected->recording))
    selected->notes.insert(selected->notes.begin(), analysis::unmatchedPatternNote(names, pattern));
  selected->covered_ns = selected->selection.fragmented() ? selected->selection.coveredNs(selected->recording.end_ns)
                                                          : selected->recording.viewDurationNs();
  return selected;
}

std::unique_ptr<SelectedEvents> selectBaseline(const SelectionArgs& args, const std::string& base_file,
                                               const std::string& base_snapshot, const SelectedEvents& next) {
  SelectionArgs base_args = args;
  base_args.file = base_file;
  base_args.snapshot = base_snapshot;
  std::unique_ptr<SelectedEvents> base = selectEvents(base_args);
  if (base->scope.kind != next.scope.kind || base->scope.metric != next.scope.metric)
    throw UserError(std::string("the two sides count different events (") + analysis::eventKindName(base->scope.kind) +
                    " and " + analysis::eventKindName(next.scope.kind) + "): give --event and --metric");
  return base;
}

void addStackOptions(CLI::App& cmd, StackArgs& args) {
  cmd.add_flag("--lines", args.lines, "One frame per method and source line");
  cmd.add_flag("--merge-threads", args.merge_threads,
               "Hang each thread's stacks below the call that started it (the threads a recorded thread started)");
}

analysis::StackProfile stackProfileOf(const SelectedEvents& selected, const analysis::EventScope& scope, const StackArgs& args) {
  return analysis::stackProfile(selected.recording, scope, args.lines, args.merge_threads);
}

void writeOutput(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw UserError("cannot write '" + path + "'");
  write(out);
  if (!out.flush()) throw UserError("writing '" + path + "' failed");
}

}  // namespace stackscope::cli

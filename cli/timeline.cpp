// `stackscope timeline FILE -o timeline.svg|timeline.html [--by state|thread] [--json]`: the
// selected events per second beside the status reports, collections, markers and snapshots,
// on one time axis (export/timeline_svg.h).
#include <algorithm>
#include <iostream>
#include <memory>

#include "analysis/snapshot_store.h"
#include "cli/command.h"
#include "cli/selection_args.h"
#include "export/json_report.h"
#include "export/timeline_svg.h"

namespace stackscope::cli {

namespace {

struct TimelineArgs {
  SelectionArgs selection;
  std::string output;
  std::string by = "state";
  size_t bins = 300;
  size_t series = 8;
  bool json = false;
};

std::vector<exporting::TimelinePicture::Pause> gcPauses(const analysis::Recording& rec, const analysis::EventPredicate& keep) {
  std::vector<exporting::TimelinePicture::Pause> pauses;
  const std::vector<analysis::EventKind> kinds = rec.eventKinds();
  if (std::find(kinds.begin(), kinds.end(), analysis::EventKind::Gc) == kinds.end()) return pauses;
  const analysis::EventScope gc{analysis::EventKind::Gc, analysis::findMetric(analysis::EventKind::Gc, "time"), keep};
  analysis::forEachEvent(rec, gc, [&](const analysis::Event& e, uint64_t ns) {
    pauses.push_back({e.time_ns, static_cast<int64_t>(ns), rec.string(rec.label(e, analysis::Label::Collector))});
  });
  return pauses;
}

// Every snapshot a --snapshot accepts by name (saved ones, then begin/end pairs) with its
// intervals; a saved one that does not resolve is left out with a note.
std::vector<exporting::TimelinePicture::Band> snapshotBands(const std::string& file, const analysis::Recording& rec,
                                                            const std::vector<analysis::MarkerEvent>& markers) {
  std::vector<analysis::SavedSnapshot> saved;
  try {
    saved = analysis::loadSavedSnapshots(file);
  } catch (const analysis::SnapshotError& e) {
    std::cerr << "stackscope: note: saved snapshots left out: " << e.what() << "\n";
  }
  std::vector<std::string> names;
  for (const auto& s : saved) names.push_back(s.name);
  for (const auto& m : markers)
    if (m.kind == format::MarkerKind::Begin && std::find(names.begin(), names.end(), m.name) == names.end())
      names.push_back(m.name);
  analysis::SnapshotResolver resolver(markers, saved, rec.end_ns);
  std::vector<exporting::TimelinePicture::Band> bands;
  for (const std::string& name : names) {
    try {
      bands.push_back({name, resolver.resolve(name).intervals});
    } catch (const std::runtime_error& e) {  // SnapshotError, or WhereError from a saved filter
      std::cerr << "stackscope: note: snapshot '" << name << "' left out: " << e.what() << "\n";
    }
  }
  return bands;
}

int runTimeline(const TimelineArgs& args) {
  if (!args.json && !args.output.ends_with(".svg") && !args.output.ends_with(".html"))
    throw UserError("-o '" + args.output + "': name a .svg or a .html file (or give --json)");
  const std::unique_ptr<SelectedEvents> selected = selectEvents(args.selection);
  for (const std::string& note : selected->notes) std::cerr << "stackscope: note: " << note << "\n";
  const analysis::Recording& rec = selected->recording;
  exporting::TimelinePicture picture;
  picture.title = args.selection.file;
  const analysis::TimeWindow hull = selected->selection.hull();
  picture.from_ns = std::max<int64_t>(hull.from_ns, 0);
  picture.to_ns = std::max(picture.from_ns + 1, std::min(hull.to_ns, rec.end_ns));
  picture.kind = selected->scope.kind;
  picture.metric = selected->scope.metric;
  picture.grouping = args.by == "thread" ? analysis::TimelineGrouping::Thread : analysis::TimelineGrouping::State;
  picture.events = analysis::buildTimeline(rec, selected->scope, picture.grouping, picture.from_ns, picture.to_ns,
                                           args.bins, args.series);
  picture.status = analysis::statusSeries(rec, selected->selection, selected->scope.keep);
  picture.pauses = gcPauses(rec, selected->scope.keep);
  for (const analysis::HistogramPoint& h : rec.histograms) picture.heap_walks.push_back({h.time_ns, h.pause_ns, ""});
  std::vector<analysis::MarkerEvent> markers;
  for (const auto& m : rec.markers) markers.push_back({m.time_ns, m.thread, m.kind, rec.string(m.name)});
  picture.snapshots = snapshotBands(args.selection.file, rec, markers);
  for (const auto& m : markers)
    if (m.kind == format::MarkerKind::Point) picture.points.push_back(m);
  const std::string output = args.output.empty() ? "-" : args.output;
  writeOutput(output, [&](std::ostream& out) {
    if (args.json) exporting::writeJson(out, exporting::timelineJson(picture));
    else if (args.output.ends_with(".html")) exporting::writeTimelineHtml(out, picture);
    else exporting::writeTimelineSvg(out, picture);
  });
  return 0;
}

}  // namespace

Command addTimelineCommand(CLI::App& parent) {
  auto args = std::make_shared<TimelineArgs>();
  CLI::App* cmd = parent.add_subcommand("timeline", "Draw the selected events, CPU load, heap and GC over time");
  cmd->footer(
      "One time axis, from top to bottom: the selected events per second (--event, --metric) stacked\n"
      "by thread state or by thread (--by); the process's and the machine's CPU load, the heap used and\n"
      "committed, and the time in GC, from the status reports; each GC pause when the gc trace ran;\n"
      "each class histogram's pause (histo=); point markers as dashed lines; snapshots (saved ones and\n"
      "begin/end marker pairs) as bars.\n"
      "-o timeline.svg writes the picture; -o timeline.html the same in a page (offline, no script);\n"
      "--json prints the data (to -o, or standard output).");
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("-o,--output", args->output, "timeline.svg or timeline.html ('-' with --json: standard output)");
  cmd->add_option("--by", args->by, "Stack the events by thread state (default) or by thread")
      ->check(CLI::IsMember({"state", "thread"}));
  cmd->add_option("--bins", args->bins, "At most this many time bins (default 300)")->check(CLI::Range(1, 100000));
  cmd->add_option("--series", args->series, "At most this many stacked series, the rest summed as 'other' (default 8)")
      ->check(CLI::Range(2, 100));
  cmd->add_flag("--json", args->json, "Print the timeline's data as JSON");
  return {cmd, [args] { return runTimeline(*args); }};
}

}  // namespace stackscope::cli

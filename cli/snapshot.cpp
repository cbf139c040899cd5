// `stackscope snapshot FILE --name N …` saves a snapshot definition beside the recording;
// `stackscope snapshots FILE` lists the markers and snapshots a recording has.
#include <sys/stat.h>

#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "analysis/recording_set.h"
#include "analysis/selection.h"
#include "analysis/snapshot_store.h"
#include "cli/command.h"
#include "common/duration.h"
#include "export/json_report.h"
#include "export/table.h"

namespace stackscope::cli {

namespace {

struct SnapshotArgs {
  std::string file;
  std::string name;
  std::string from;
  std::string to;
  std::string where;
  std::string parent;
};

int runSnapshot(const SnapshotArgs& args) {
  if (args.name.empty() || args.name.find("..") != std::string::npos)
    throw UserError("--name must be non-empty and must not contain '..' (that spells a span between markers)");
  analysis::SavedSnapshot snapshot{args.name, 0, analysis::TimeWindow::kOpen, args.where, args.parent};
  if (!args.from.empty()) snapshot.from_ns = parseDurationOption(args.from, "--from");
  if (!args.to.empty()) snapshot.to_ns = parseDurationOption(args.to, "--to");
  if (snapshot.to_ns <= snapshot.from_ns) throw UserError("--to must be later than --from");
  analysis::loadMapDataSet(args.file);  // a clear error now if the file is not a recording
  try {
    if (!args.where.empty()) analysis::parseWhere(args.where);
    // Resolve the definition as it will be saved, before saving it: a parent that does not
    // exist or a cycle is refused and the sidecar stays as it was.
    std::vector<analysis::SavedSnapshot> all = analysis::loadSavedSnapshots(args.file);
    std::vector<std::string> notes;
    for (const auto& s : all)
      if (s.name == args.name)
        notes.push_back("snapshot '" + args.name + "' existed (" + formatDuration(s.from_ns) + ".." +
                        (s.to_ns == analysis::TimeWindow::kOpen ? std::string("end") : formatDuration(s.to_ns)) +
                        (s.where.empty() ? "" : " where " + s.where) + (s.parent.empty() ? "" : " inside " + s.parent) +
                        "): its definition is replaced");
    std::erase_if(all, [&](const auto& s) { return s.name == args.name; });
    all.push_back(snapshot);
    const analysis::Recording maps = analysis::loadMapDataSet(args.file);
    std::vector<analysis::MarkerEvent> markers;
    for (const auto& m : maps.markers) markers.push_back({m.time_ns, m.thread, m.kind, maps.string(m.name)});
    const analysis::Snapshot resolved = analysis::resolveSnapshot(args.name, markers, all, maps.end_ns);
    analysis::saveSnapshot(args.file, snapshot);
    notes.insert(notes.end(), resolved.notes.begin(), resolved.notes.end());
    for (const std::string& note : notes) std::cerr << "stackscope: note: " << note << '\n';
    std::cout << "saved snapshot '" << args.name << "' (" << resolved.definition << ") in "
              << analysis::snapshotSidecarPath(args.file) << '\n';
  } catch (const analysis::SnapshotError& e) {
    throw UserError(e.what());
  } catch (const analysis::WhereError& e) {
    throw UserError(e.what());
  }
  return 0;
}

struct ListArgs {
  std::string file;
  bool json = false;
};

std::string intervalsText(const std::vector<analysis::TimeWindow>& intervals) {
  std::string out;
  for (const auto& w : intervals) {
    if (!out.empty()) out += ", ";
    out += formatDuration(w.from_ns) + ".." + (w.to_ns == analysis::TimeWindow::kOpen ? "end" : formatDuration(w.to_ns));
  }
  return out.empty() ? "(empty)" : out;
}

uint64_t samplesIn(const analysis::Recording& rec, const analysis::Snapshot& snapshot) {
  analysis::Selection selection;
  selection.intervals = snapshot.intervals;
  selection.filters = snapshot.filters;
  selection.resource = analysis::parseResourceName("methods");
  const analysis::EventPredicate filter = analysis::selectionPredicate(selection, rec);
  const auto keep = [&](const analysis::Event& e) { return snapshot.contains(e.time_ns) && (!filter || filter(e)); };
  return analysis::forEachEvent(rec, analysis::ownEvents(rec, keep), [](const analysis::Event&, uint64_t) {}).samples;
}

int runList(const ListArgs& args) {
  const analysis::Recording rec = analysis::loadRecordingSet(args.file);
  std::vector<analysis::MarkerEvent> markers;
  for (const auto& m : rec.markers) markers.push_back({m.time_ns, m.thread, m.kind, rec.string(m.name)});
  std::vector<analysis::SavedSnapshot> saved;
  try {
    saved = analysis::loadSavedSnapshots(args.file);
  } catch (const analysis::SnapshotError& e) {
    throw UserError(e.what());
  }
  // Every name a --snapshot accepts: saved ones, then begin/end pairs.
  std::vector<std::pair<std::string, std::string>> names;  // name, kind
  for (const auto& s : saved) names.push_back({s.name, "saved"});
  std::set<std::string> pairs;
  for (const auto& m : markers)
    if (m.kind == format::MarkerKind::Begin && pairs.insert(m.name).second) names.push_back({m.name, "markers"});

  exporting::Json json = {{"file", args.file}, {"snapshots", exporting::Json::array()}, {"markers", exporting::Json::array()}};
  exporting::TextTable table;
  for (const char* column : {"Snapshot", "Kind", "Samples", "Intervals", "Definition"})
    table.addColumn(column, std::string_view(column) == "Samples" ? exporting::TextTable::Align::Right : exporting::TextTable::Align::Left);
  analysis::SnapshotResolver resolver(markers, saved, rec.end_ns);
  for (const auto& [name, kind] : names) {
    try {
      const analysis::Snapshot s = resolver.resolve(name);
      const uint64_t samples = samplesIn(rec, s);
      table.addRow({name, kind, std::to_string(samples), intervalsText(s.intervals), s.definition});
      exporting::Json intervals = exporting::Json::array();
      for (const auto& w : s.intervals)
        intervals.push_back({{"from_ns", w.from_ns}, {"to_ns", w.to_ns == analysis::TimeWindow::kOpen ? exporting::Json(nullptr) : exporting::Json(w.to_ns)}});
      json["snapshots"].push_back({{"name", name}, {"kind", kind}, {"samples", samples}, {"intervals", intervals},
                                   {"where", s.filters}, {"definition", s.definition}});
    } catch (const std::runtime_error& e) {  // SnapshotError, or WhereError from a saved filter
      table.addRow({name, kind, "-", "-", std::string("broken: ") + e.what()});
      json["snapshots"].push_back({{"name", name}, {"kind", kind}, {"error", e.what()}});
    }
  }
  for (const auto& m : markers) {
    const char* kind = m.kind == format::MarkerKind::Point ? "point" : m.kind == format::MarkerKind::Begin ? "begin" : "end";
    json["markers"].push_back({{"name", m.name}, {"kind", kind}, {"time_ns", m.time_ns}, {"thread", rec.threads[m.thread < rec.threads.size() ? m.thread : 0].name}});
  }
  if (args.json) {
    exporting::writeJson(std::cout, json);
    return 0;
  }
  std::cout << "File: " << args.file << '\n';
  if (names.empty()) std::cout << "No saved snapshots and no begin/end markers.\n";
  else table.write(std::cout);
  if (!markers.empty()) {
    std::cout << "\nMarkers (A..B selects the time from point marker A to the next point marker B):\n";
    exporting::TextTable list;
    for (const char* column : {"Time", "Kind", "Name", "Thread"}) list.addColumn(column, exporting::TextTable::Align::Left);
    for (const auto& m : json["markers"])
      list.addRow({formatDuration(m["time_ns"].get<int64_t>()), m["kind"].get<std::string>(), m["name"].get<std::string>(),
                   m["thread"].get<std::string>()});
    list.write(std::cout);
  }
  return 0;
}

}  // namespace

Command addSnapshotCommand(CLI::App& parent) {
  auto args = std::make_shared<SnapshotArgs>();
  CLI::App* cmd = parent.add_subcommand("snapshot", "Save a named snapshot (interval + filter) beside a recording");
  cmd->footer("The definition goes to FILE.snapshots.json; the recording is never rewritten.\n"
              "With --parent P the snapshot is the intersection of its own interval and filter with P's.\n"
              "Use it with: stackscope report FILE --snapshot NAME");
  cmd->add_option("file", args->file, "The recording (.ssr)")->required();
  cmd->add_option("--name", args->name, "The snapshot's name")->required();
  cmd->add_option("--from", args->from, "Start (offset from the recording's start)");
  cmd->add_option("--to", args->to, "End (offset from the recording's start)");
  cmd->add_option("--where", args->where, "A logical filter, as in report --where");
  cmd->add_option("--parent", args->parent, "A snapshot this one lies inside (saved or marker)");
  return {cmd, [args] { return runSnapshot(*args); }};
}

Command addSnapshotsCommand(CLI::App& parent) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* cmd = parent.add_subcommand("snapshots", "List a recording's markers and snapshots with their sample counts");
  cmd->add_option("file", args->file, "The recording (.ssr)")->required();
  cmd->add_flag("--json", args->json, "Print one JSON object instead of tables");
  return {cmd, [args] { return runList(*args); }};
}

}  // namespace stackscope::cli

// `stackscope report FILE`: one view of a recording, or of a snapshot of it, as a table or as
// JSON. Views are named by resource names (analysis/resource_name.h) and cached next to the
// recording (analysis/view_cache.h).
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "analysis/load.h"
#include "analysis/names.h"
#include "analysis/selection_notes.h"
#include "analysis/view_cache.h"
#include "cli/command.h"
#include "cli/report_views.h"

namespace stackscope::cli {

namespace {

constexpr int64_t kDefaultTextRows = 30;  // a terminal's worth; JSON is for programs and gets all
constexpr const char* kCacheFormat = "report-view 4";  // bump when the output of a view changes

struct ReportArgs {
  std::string file;
  std::string view = "methods";
  std::string from;
  std::string to;
  std::string snapshot;
  std::string where;
  std::string event;   // "" = the recording's own kind
  std::string metric;  // "" = the kind's default
  int64_t top = -1;  // -1: the default of the output kind
  bool json = false;
  bool no_cache = false;
  bool lines = false;
  bool kinds = false;
};

analysis::TimeWindow windowOf(const ReportArgs& args) {
  analysis::TimeWindow window;
  if (!args.from.empty()) window.from_ns = parseDurationOption(args.from, "--from");
  if (!args.to.empty()) window.to_ns = parseDurationOption(args.to, "--to");
  if (window.to_ns <= window.from_ns) throw UserError("--to must be later than --from");
  return window;
}

analysis::Selection select(const ReportArgs& args) {
  try {
    // A selection of no time is not an error: the report says why it is empty (a note).
    return analysis::resolveSelection(args.file, {args.snapshot, windowOf(args), args.where, args.view});
  } catch (const analysis::SnapshotError& e) {
    throw UserError(e.what());
  } catch (const analysis::WhereError& e) {
    throw UserError(e.what());
  } catch (const analysis::ResourceNameError& e) {
    throw UserError(std::string("--view: ") + e.what());
  }
}

std::string kindList(const std::vector<analysis::EventKind>& kinds) {
  std::string out;
  for (analysis::EventKind kind : kinds) out += (out.empty() ? "" : ", ") + std::string(analysis::eventKindName(kind));
  return out;
}

// A kind name --event can take at all; checked before anything is read.
void checkEventName(const std::string& name) {
  if (name.empty() || analysis::parseEventKind(name)) return;
  std::vector<analysis::EventKind> known;
  for (const analysis::EventKindInfo& info : analysis::eventKinds()) known.push_back(info.kind);
  throw UserError("--event '" + name + "': no such event kind (known: " + kindList(known) + ")");
}

// Without --event: the kind a resource name's element is about when the recording has it
// (exceptions[…] and the exceptions view: exception events, which alone have a thrown class;
// gc[…] and the gc view: collections), else the recording's own kind.
analysis::EventKind defaultKind(const analysis::Selection& selection, const std::vector<analysis::EventKind>& kinds) {
  for (const analysis::ResourceElement& element : selection.resource.elements) {
    const auto kind = element.type == analysis::ResourceType::Exceptions ? std::optional(analysis::EventKind::Exception)
                      : element.type == analysis::ResourceType::Gc       ? std::optional(analysis::EventKind::Gc)
                                                                         : std::nullopt;
    if (kind && std::find(kinds.begin(), kinds.end(), *kind) != kinds.end()) return *kind;
  }
  return kinds.front();
}

// The kind and metric the view counts: the recording's own kind and the kind's default metric
// unless asked otherwise; a kind the recording lacks, or a metric the kind lacks, is the
// user's mistake, told with what there is to choose from.
void chooseEvents(const ReportArgs& args, const analysis::Selection& selection, const analysis::Recording& recording,
                  exporting::ReportOptions& options) {
  const std::vector<analysis::EventKind> kinds = recording.eventKinds();
  options.event = args.event.empty() ? defaultKind(selection, kinds) : *analysis::parseEventKind(args.event);
  if (std::find(kinds.begin(), kinds.end(), options.event) == kinds.end())
    throw UserError("--event " + args.event + ": the recording has no " + args.event + " events; it has: " + kindList(kinds));
  // The gc view sums collections' time: its longest and mean pauses are times.
  const bool gc_view = selection.resource.view().type == analysis::ResourceType::Gc;
  if (gc_view && ((!args.event.empty() && options.event != analysis::EventKind::Gc) || (!args.metric.empty() && args.metric != "time")))
    throw UserError("the gc view counts gc events in time: leave out --event and --metric, or give --event gc --metric time");
  const bool gc_time = gc_view && options.event == analysis::EventKind::Gc && args.metric.empty();
  const std::string metric = gc_time ? "time" : args.metric;
  options.metric = metric.empty() ? &analysis::defaultMetric(options.event) : analysis::findMetric(options.event, metric);
  if (!options.metric)
    throw UserError("--metric " + args.metric + ": " + analysis::eventKindName(options.event) + " events have no metric '" +
                    args.metric + "'; they have: " + analysis::metricList(options.event));
}

// The view, and in `notes` why it is empty or what else the user should know (selection_notes.h).
std::string render(const ReportArgs& args, const analysis::Selection& selection, std::vector<std::string>& notes) {
  const analysis::Recording recording = analysis::loadRecording(args.file, selection.hull());
  exporting::ReportOptions options;
  chooseEvents(args, selection, recording, options);
  notes = options.notes = analysis::selectionNotes(selection, recording, options.event);
  options.file = args.file;
  options.top = static_cast<size_t>(args.top >= 0 ? args.top : args.json ? 0 : kDefaultTextRows);
  options.resource = selection.resource.toString();
  options.filters = selection.filters;
  if (selection.snapshot) {
    options.snapshot = selection.snapshot->name;
    options.snapshot_definition = selection.snapshot->definition;
  }
  if (selection.fragmented()) options.covered_ns = selection.coveredNs(recording.end_ns);
  options.lines = args.lines;
  options.kinds = args.kinds;
  options.unmatched = analysis::unmatchedMethodPatterns(selection, recording);
  // A name that matches no method at all explains an empty view best: it comes first.
  const analysis::MethodNames names(recording);
  for (auto it = options.unmatched.rbegin(); it != options.unmatched.rend(); ++it)
    options.notes.insert(options.notes.begin(), analysis::unmatchedPatternNote(names, *it));
  notes = options.notes;
  options.bytes_read = recording.bytes_read;
  options.file_size = recording.file_size;
  std::ostringstream out;
  writeView(out, recording, selection, options, args.json);
  return out.str();
}

int runReport(const ReportArgs& args) {
  struct stat st {};
  if (::stat(args.file.c_str(), &st) != 0) throw UserError("cannot open '" + args.file + "': " + std::strerror(errno));
  checkEventName(args.event);
  const analysis::Selection selection = select(args);
  std::unique_ptr<analysis::ViewCache> cache;
  std::string key;
  if (!args.no_cache) {
    cache = std::make_unique<analysis::ViewCache>(args.file);
    key = std::string(kCacheFormat) + "\nfile=" + args.file + "\njson=" + (args.json ? "1" : "0") +
          "\ntop=" + std::to_string(args.top) + "\nlines=" + (args.lines ? "1" : "0") +
          "\nkinds=" + (args.kinds ? "1" : "0") + "\nevent=" + args.event + "\nmetric=" + args.metric + "\n" + selection.key();
    const auto hit = cache->get(key);
    const auto hit_notes = cache->get(key + "\nstream=notes");
    if (hit && hit_notes) {
      std::cerr << *hit_notes;
      std::cout << *hit;
      return 0;
    }
  }
  std::vector<std::string> notes;
  const std::string output = render(args, selection, notes);
  std::string notes_text;  // one line each on stderr: exit 0, the empty view is an answer
  for (const std::string& note : notes) notes_text += "stackscope: note: " + note + "\n";
  if (cache) {
    cache->put(key, output);
    cache->put(key + "\nstream=notes", notes_text);
  }
  std::cerr << notes_text;
  std::cout << output;
  return 0;
}

}  // namespace

Command addReportCommand(CLI::App& parent) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = parent.add_subcommand("report", "Print where a recording spent its time");
  cmd->footer(
      "Views (--view), or a resource name that navigates to one, e.g. 'methods[pkg.A.run]/threads':\n"
      "  methods       per method: self samples (on top of the stack) and total samples (anywhere on\n"
      "                it, once per sample even under recursion), hottest first\n"
      "  tree          the call tree: Level, RL (recursion level), Calls (observed entries, a lower\n"
      "                bound), Base (samples with this exact path), Cum (Base plus descendants)\n"
      "  threads       samples per thread, and per thread state in wall mode\n"
      "  callers       back-traces of the selected methods: 'methods[pkg.A.run]/callers'\n"
      "  states        samples per thread state\n"
      "  users, sessions, requests, applications, components   samples per annotation value\n"
      "  vthreads      virtual threads (JDK 21+): how many, on how many carriers, their states and\n"
      "                hottest stacks\n"
      "  status        every status report: process and machine CPU load, GC count and time, heap\n"
      "                used and committed, live threads (process-wide: only time narrows it)\n"
      "  gc            the gc trace's collections by collector: count, total, longest and mean pause,\n"
      "                first and last, causes (record -e cpu,gc); 'gc[G1*]' selects collectors\n"
      "  exceptions    exceptions by thrown class (record -e cpu,exception);\n"
      "                'exceptions[java.io.*]/methods': where those were thrown\n"
      "In a resource name every element but the last narrows the samples: methods[a,b] keeps samples\n"
      "with a or b on the stack, threads[glob], states[sleeping], users[u1], …; all must hold.\n"
      "Times are offsets from the recording's start: --from 1m40s --to 5m, the window is [from, to).\n"
      "--where: thread, tid, class, method, package (of the top frame), path~M (M anywhere on the\n"
      "stack), state, event, user, session, request, application, component, exception (the\n"
      "thrown class, on exception events), collector, cause (on gc events); with =, != (globs),\n"
      "and, or, not, parentheses: --where 'user=u1 and not state=sleeping'.\n"
      "Methods are named pkg.Class.method; overloads with their parameters, as the report shows them:\n"
      "methods[pkg.Main.work(int)], --where 'method=pkg.Main.work(int, String)', or a JVM descriptor\n"
      "work(I)D. Lambda and proxy classes lose their run-specific counters and addresses.\n"
      "Events (--event) and metrics (--metric): every view counts one kind of event in one metric, by\n"
      "default the recording's own kind (cpu or wall) in samples; cpu and wall also have time (ns: samples\n"
      "times the interval). Percentages are of the view's total in that metric.\n"
      "Views are cached in FILE.cache/ and recomputed when the recording changes.");
  cmd->add_option("file", args->file, "The recording (.ssr)")->required();
  cmd->add_option("--view", args->view, "A view or a resource name (default methods)");
  cmd->add_option("--from", args->from, "Start of the window (offset from the recording's start)");
  cmd->add_option("--to", args->to, "End of the window (offset from the recording's start)");
  cmd->add_option("--snapshot", args->snapshot, "A saved snapshot, a begin/end marker pair NAME, or A..B between markers");
  cmd->add_option("--where", args->where, "A logical filter on the events (see below)");
  cmd->add_option("--event", args->event, "The kind of events to count: cpu, wall, alloc, … (default: the recording's own)");
  cmd->add_option("--metric", args->metric, "What to count them by: samples, time, bytes, … (default samples)");
  cmd->add_option("--top", args->top, "Rows to print; default 30 in text, all in JSON; 0 = all")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "Print one JSON object instead of a table");
  cmd->add_flag("--lines", args->lines, "Rows per method and source line (method:line) in methods, tree and callers");
  cmd->add_flag("--kinds", args->kinds, "A Kind column: java or native frames (JSON always has kind)");
  cmd->add_flag("--no-cache", args->no_cache, "Compute the view from the events even if it is cached");
  return {cmd, [args] { return runReport(*args); }};
}

}  // namespace stackscope::cli

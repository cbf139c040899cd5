// `stackscope report FILE`: one view of a recording, or of a snapshot of it, as a table or as
// JSON. Views are named by resource names (analysis/resource_name.h) and cached next to the
// recording (analysis/view_cache.h).
#include <iostream>
#include <memory>
#include <sstream>

#include "analysis/recording_set.h"
#include "analysis/names.h"
#include "analysis/selection_notes.h"
#include "analysis/view_cache.h"
#include "cli/command.h"
#include "cli/report_views.h"
#include "cli/selection_args.h"

namespace stackscope::cli {

namespace {

constexpr int64_t kDefaultTextRows = 30;  // a terminal's worth; JSON is for programs and gets all
constexpr const char* kCacheFormat = "report-view 6";  // bump when the output of a view changes

struct ReportArgs {
  SelectionArgs selection;
  std::string view = "methods";
  int64_t top = -1;  // -1: the default of the output kind
  bool json = false;
  bool no_cache = false;
  bool lines = false;
  bool kinds = false;
};

// The view, and in `notes` why it is empty or what else the user should know (selection_notes.h).
std::string render(const ReportArgs& args, const analysis::Selection& selection, std::vector<std::string>& notes) {
  const analysis::Recording recording = analysis::loadRecordingSet(args.selection.file, selection.hull(), sampleRowsFor(selection));
  exporting::ReportOptions options;
  const ChosenEvents chosen = chooseEvents(args.selection, selection, recording);
  options.event = chosen.kind;
  options.metric = chosen.metric;
  notes = options.notes = analysis::selectionNotes(selection, recording, options.event);
  options.file = args.selection.file;
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
  checkSelectionArgs(args.selection);
  const analysis::Selection selection = resolveSelectionArgs(args.selection, args.view);
  std::unique_ptr<analysis::ViewCache> cache;
  std::string key;
  // The cache knows one file: a rotated recording, which grows by parts, is read afresh.
  if (!args.no_cache && analysis::recordingParts(args.selection.file).size() == 1) {
    cache = std::make_unique<analysis::ViewCache>(args.selection.file);
    key = std::string(kCacheFormat) + "\nfile=" + args.selection.file + "\njson=" + (args.json ? "1" : "0") +
          "\ntop=" + std::to_string(args.top) + "\nlines=" + (args.lines ? "1" : "0") +
          "\nkinds=" + (args.kinds ? "1" : "0") + "\nevent=" + args.selection.event + "\nmetric=" + args.selection.metric + "\n" + selection.key();
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
      "  graph         the call graph: per method self and total, per call (caller -> callee) its\n"
      "                cumulative value, count and rc (the recursive part), each counted once per event\n"
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
      "  classes       allocations by the allocated object's class (record -e cpu,alloc; default --event\n"
      "                alloc): 'classes[byte[]]/threads', 'classes[com.shop.*]/methods'\n"
      "  allocations   the allocation events of a selection, by class: 'methods[pkg.A.run]/allocations'\n"
      "                (the classes pkg.A.run allocated), then '.../allocations/classes[byte[]]/threads'\n"
      "  ages          events by how long before the end of the selection they happened; by default the\n"
      "                live objects (record -e cpu,live): how long ago the objects still live were allocated\n"
      "  locks         waits by lock class (record -e cpu,lock): total, count (Events) and longest\n"
      "                (Max) wait; lock events (contended monitors, java.util.concurrent locks) or,\n"
      "                with --event wait, waits (Object.wait, conditions, queues);\n"
      "                'locks[pkg.Cache]/threads': the threads that waited for that class's locks\n"
      "  owners        lock waits by owner: the thread that held the lock, and the methods looks saw\n"
      "                it hold it in (the innermost frame outside the JDK), 'locks[pkg.Cache]/owners'\n"
      "  histogram     objects in the heap per class (instances, shallow bytes) at the last class\n"
      "                histogram of the selection (record --histo 10s, or gc:N after every Nth GC)\n"
      "  histogram-growth   per class, the last histogram of the selection minus the first: what grew\n"
      "                between them (--from/--to or a snapshot pick the two)\n"
      "In a resource name every element but the last narrows the samples: methods[a,b] keeps samples\n"
      "with a or b on the stack, threads[glob], states[sleeping], users[u1], …; all must hold.\n"
      "Times are offsets from the recording's start: --from 1m40s --to 5m, the window is [from, to).\n"
      "--where: thread, tid, class, method, package (of the top frame), path~M (M anywhere on the\n"
      "stack), state, event, user, session, request, application, component, exception (the\n"
      "thrown class, on exception events), collector, cause (on gc events); class is the object's class\n"
      "on alloc and live events (class=byte[], class=com.shop.*; [] is literal there), lock (the lock\n"
      "class, on lock and wait events); with =, != (globs),\n"
      "and, or, not, parentheses: --where 'user=u1 and not state=sleeping'.\n"
      "Methods are named pkg.Class.method; overloads with their parameters, as the report shows them:\n"
      "methods[pkg.Main.work(int)], --where 'method=pkg.Main.work(int, String)', or a JVM descriptor\n"
      "work(I)D. Lambda and proxy classes lose their run-specific counters and addresses.\n"
      "Events (--event) and metrics (--metric): every view counts one kind of event in one metric, by\n"
      "default the recording's own kind (cpu or wall) in samples; cpu and wall also have time (ns: samples\n"
      "times the interval). alloc (sampled allocations) and live (those not freed by the end of the\n"
      "selection: --to, a snapshot's end, or the recording's) have samples, objects and bytes, the last two\n"
      "scaled to estimates of the true totals (the header says how); lock and wait have time (ns waited,\n"
      "their default) and count. Percentages are of the view's total.\n"
      "cpu and wall also have cpu-time (ns) and alloc-bytes (bytes): what each sample's thread used of\n"
      "its CPU clock and allocated since its previous sample (record --metrics cpu,alloc).\n"
      "Views are cached in FILE.cache/ and recomputed when the recording changes.");
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("--view", args->view, "A view or a resource name (default methods)");
  cmd->add_option("--top", args->top, "Rows to print; default 30 in text, all in JSON; 0 = all")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", args->json, "Print one JSON object instead of a table");
  cmd->add_flag("--lines", args->lines, "Rows per method and source line (method:line) in methods, tree and callers");
  cmd->add_flag("--kinds", args->kinds, "A Kind column: java or native frames (JSON always has kind)");
  cmd->add_flag("--no-cache", args->no_cache, "Compute the view from the events even if it is cached");
  return {cmd, [args] { return runReport(*args); }};
}

}  // namespace stackscope::cli

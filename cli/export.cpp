// `stackscope export FILE --format F -o OUT`: the selected events as a profile other tools
// read (export/stack_exports.h), in any kind of event and metric the recording holds.
#include <iostream>
#include <memory>

#include "analysis/stack_profile.h"
#include "cli/command.h"
#include "cli/selection_args.h"
#include "export/chrome_trace.h"
#include "export/profilerj_xml.h"
#include "export/stack_exports.h"

namespace stackscope::cli {

namespace {

struct ExportArgs {
  SelectionArgs selection;
  std::string format;
  std::string output;
  StackArgs stacks;
};

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

int runExport(const ExportArgs& args) {
  const std::unique_ptr<SelectedEvents> selected = selectEvents(args.selection);
  for (const std::string& note : selected->notes) std::cerr << "stackscope: note: " << note << "\n";
  const analysis::StackProfile profile = stackProfileOf(*selected, selected->scope, args.stacks);
  const analysis::EventKind kind = selected->scope.kind;
  const exporting::ProfileMeta meta{baseName(args.selection.file), selected->scope.metric, kind,
                                    selected->recording.info.start_epoch_ns, selected->covered_ns,
                                    kind == analysis::EventKind::Cpu || kind == analysis::EventKind::Wall
                                        ? selected->recording.info.interval_ns
                                        : 0};
  writeOutput(args.output, [&](std::ostream& out) {
    if (args.format == "chrome") exporting::writeChromeTrace(out, selected->recording, selected->scope.keep, meta.name);
    else if (args.format == "profilerj-xml") exporting::writeProfilerJXml(out, selected->recording, selected->scope.keep, meta.name);
    else if (args.format == "collapsed") exporting::writeCollapsed(out, profile);
    else if (args.format == "pprof") out << exporting::pprofBytes(profile, meta);
    else exporting::writeSpeedscope(out, profile, meta);
  });
  return 0;
}

}  // namespace

Command addExportCommand(CLI::App& parent) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = parent.add_subcommand("export", "Write the selected events as a profile other tools read");
  cmd->footer(
      "Formats (--format):\n"
      "  collapsed   folded stacks, 'outer;...;inner VALUE' per line: the input of flame graph tools\n"
      "  pprof       gzipped profile.proto: go tool pprof -top OUT, go tool pprof -http=: OUT\n"
      "  speedscope  speedscope's JSON file format: open it at speedscope.app or in its local viewer\n"
      "  chrome      trace-event JSON (Perfetto's UI, chrome://tracing): every event with a duration\n"
      "              (gc pauses, lock and wait times) on its thread's track, and the markers\n"
      "  profilerj-xml  the ProfilerJ snapshot format: <sampler> per thread (samples running and in\n"
      "              any state, CPU and elapsed time, the call tree) and <memory> per thread and class\n"
      "              (objects live at the end and the most live at once, from the alloc/live traces);\n"
      "              --event and --metric do not apply\n"
      "Values are in the chosen metric (--event, --metric; see `stackscope report --help`); pprof\n"
      "also carries the samples. --from/--to/--snapshot/--where narrow the events as in report.");
  addSelectionOptions(*cmd, args->selection);
  cmd->add_option("--format", args->format, "collapsed, pprof, speedscope, chrome or profilerj-xml")
      ->required()
      ->check(CLI::IsMember({"collapsed", "pprof", "speedscope", "chrome", "profilerj-xml"}));
  cmd->add_option("-o,--output", args->output, "The file to write ('-': standard output)")->required();
  addStackOptions(*cmd, args->stacks);
  return {cmd, [args] { return runExport(*args); }};
}

}  // namespace stackscope::cli

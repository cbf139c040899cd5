// `stackscope info FILE`: what a recording file is made of (header, index, chunks, records,
// status reports), for checking a file and for debugging the format.
#include <iostream>
#include <memory>

#include "analysis/file_inspection.h"
#include "cli/command.h"
#include "export/info_report.h"
#include "export/json_report.h"

namespace stackscope::cli {

namespace {

struct InfoArgs {
  std::string file;
  bool json = false;
  bool chunks = false;
};

int runInfo(const InfoArgs& args) {
  const analysis::FileInspection inspection = analysis::inspectFile(args.file);
  const exporting::InfoOptions options{args.file, args.chunks};
  if (args.json) exporting::writeJson(std::cout, exporting::infoJson(inspection, options));
  else exporting::writeInfoText(std::cout, inspection, options);
  return 0;
}

}  // namespace

Command addInfoCommand(CLI::App& parent) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* cmd = parent.add_subcommand("info", "Describe a recording file: header, chunks, records, status reports");
  cmd->add_option("file", args->file, "The recording (.ssr)")->required();
  cmd->add_flag("--chunks", args->chunks, "List every chunk: offset, kind, sizes, records, time range");
  cmd->add_flag("--json", args->json, "Print one JSON object instead of text");
  return {cmd, [args] { return runInfo(*args); }};
}

}  // namespace stackscope::cli

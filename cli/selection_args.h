// What every command that reads a recording's events takes to choose them — the window
// (--from/--to), the snapshot, the --where filter and the kind of event and metric — parsed
// and checked the same way for `report`, `export` and `flame`.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/recording.h"
#include "analysis/selection.h"
#include "analysis/stack_profile.h"

namespace stackscope::cli {

struct SelectionArgs {
  std::string file;
  std::string from;
  std::string to;
  std::string snapshot;
  std::string where;
  std::string event;   // "" = the recording's own kind
  std::string metric;  // "" = the kind's default
};

// Declares FILE, --from, --to, --snapshot, --where, --event and --metric on `cmd`.
void addSelectionOptions(CLI::App& cmd, SelectionArgs& args);

// Checks that the file exists and --event names a kind at all, before anything is read;
// throws UserError.
void checkSelectionArgs(const SelectionArgs& args);

// The selection of `resource` ("methods" when empty) under the options; throws UserError.
analysis::Selection resolveSelectionArgs(const SelectionArgs& args, const std::string& resource);

struct ChosenEvents {
  analysis::EventKind kind = analysis::EventKind::Cpu;
  const analysis::MetricInfo* metric = nullptr;
};

// The kind and metric to count: --event/--metric, else the kind the resource name implies
// (exceptions[...] counts exception events) or the recording's own, in the kind's default
// metric. A kind the recording lacks, or a metric the kind lacks, is the user's mistake
// (UserError), told with what there is to choose from.
ChosenEvents chooseEvents(const SelectionArgs& args, const analysis::Selection& selection,
                          const analysis::Recording& recording);

// A recording loaded for the selection of the options, with the events chosen: what the
// commands that write a whole profile (export, flame) work from.
struct SelectedEvents {
  analysis::Selection selection;
  analysis::Recording recording;
  analysis::EventScope scope;
  std::vector<std::string> notes;  // why the selection is empty, unmatched patterns… (for stderr)
  int64_t covered_ns = 0;          // time the selection covers
};
// Throws UserError. The scope's predicate refers to `recording`: keep the object where it is.
std::unique_ptr<SelectedEvents> selectEvents(const SelectionArgs& args);

// The base side of a comparison (diff, flame --baseline): the same options as the new side's
// `args` but the file and the snapshot. Both sides must count the same kind of event in the same
// metric: a UserError says so otherwise.
std::unique_ptr<SelectedEvents> selectBaseline(const SelectionArgs& args, const std::string& base_file,
                                               const std::string& base_snapshot, const SelectedEvents& next);

// How the events' stacks become a profile's (analysis/stack_profile.h), for the commands that
// draw or export stacks: --lines and --merge-threads.
struct StackArgs {
  bool lines = false;
  bool merge_threads = false;
};
void addStackOptions(CLI::App& cmd, StackArgs& args);
analysis::StackProfile stackProfileOf(const SelectedEvents& selected, const analysis::EventScope& scope, const StackArgs& args);

// Writes what `write` prints to the file `path` ("-": standard output); throws UserError when
// the file cannot be opened or written.
void writeOutput(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace stackscope::cli

// The header every report starts with: which file, what was recorded, over which time, how
// many samples were taken and how many were lost and why, and what the reader had to skip.
// A profile that hides its losses misleads, so no view is printed without it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/recording.h"

namespace stackscope::exporting {

using Json = nlohmann::ordered_json;  // keeps keys in the order written, for people reading it

// What a report is about, as the command line named it.
struct ReportOptions {
  std::string file;  // the recording's path as the user gave it
  size_t top = 0;    // rows to print; 0 prints all
  // What narrowed the view (empty when nothing did), printed so a view can be named again.
  std::string resource;             // canonical resource name, e.g. "threads[main]/methods"
  std::string snapshot;             // snapshot name
  std::string snapshot_definition;  // how the snapshot was made
  std::vector<std::string> filters;  // --where expressions, all holding
  int64_t covered_ns = -1;          // time the view covers when not one window; -1: the window's
  std::vector<std::string> notes;   // why the view is empty, unpaired markers… (selection_notes.h)
  uint64_t bytes_read = 0;          // of the recording, to build this view
  uint64_t file_size = 0;
  bool lines = false;               // --lines: rows per method and source line (`method:line`)
  bool kinds = false;               // --kinds: a column with the kind of each row's frames
  std::vector<std::string> unmatched;  // method, class or package patterns that name no method

  size_t rows(size_t available) const { return top == 0 || top > available ? available : top; }
};

// `samples` is the number of samples in the view (the base of every percentage).
void writeTextHeader(std::ostream& out, const analysis::Recording& recording, const ReportOptions& options,
                     uint64_t samples);
// The header as the first members of a view's JSON object.
Json jsonHeader(const analysis::Recording& recording, const ReportOptions& options, std::string_view view,
                uint64_t samples);

// Percentages in JSON are rounded to 4 decimals: enough for any comparison, and stable
// output for golden files.
double jsonPercent(uint64_t part, uint64_t whole);

}  // namespace stackscope::exporting

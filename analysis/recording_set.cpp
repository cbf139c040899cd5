#include "analysis/recording_set.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <utility>

#include "analysis/load.h"
#include "analysis/recording_merge.h"
#include "format/part_names.h"
#include "format/reader.h"

namespace stackscope::analysis {

namespace {

namespace fs = std::filesystem;

struct Part {
  uint64_t number;  // 0: the file the recording began in
  std::string path;
};

std::vector<Part> partsOf(const std::string& path) {
  std::vector<Part> parts;
  std::error_code error;
  const fs::path named(path);
  const fs::path dir = named.has_parent_path() ? named.parent_path() : fs::path(".");
  const std::string first = named.filename().string();
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (const auto n = format::partNumber(first, name); n && entry.is_regular_file(error))
      parts.push_back({*n, (named.has_parent_path() ? (dir / name).string() : name)});
  }
  std::sort(parts.begin(), parts.end(), [](const Part& a, const Part& b) { return a.number < b.number; });
  if (fs::exists(named, error) || parts.empty()) parts.insert(parts.begin(), {0, path});
  return parts;
}

// The parts, loaded with `load` and merged; `load` throws format::FormatError for a file that
// is not a recording.
Recording loadSet(const std::string& path, const std::function<Recording(const std::string&)>& load) {
  const std::vector<Part> parts = partsOf(path);
  Recording merged = load(parts.front().path);
  if (parts.size() == 1) return merged;
  std::vector<std::string> notes;
  if (parts.front().number > 0)
    notes.push_back("the recording's files before '" + parts.front().path + "' are gone (deleted by maxfiles=?)");
  RecordingMerger merger(merged);
  uint64_t expected = parts.front().number + 1;
  for (size_t i = 1; i < parts.size(); ++i) {
    const Part& part = parts[i];
    if (part.number != expected)
      notes.push_back("the recording's part " + format::partName(path, expected) +
                      (part.number > expected + 1 ? " and the ones up to part " + std::to_string(part.number - 1) : std::string()) +
                      " are missing: their time is not in the report");
    expected = part.number + 1;
    Recording next;
    try {
      next = load(part.path);
    } catch (const format::FormatError& e) {
      notes.push_back("'" + part.path + "' was left out: " + e.what());
      continue;
    }
    if (merged.has_info && (!next.has_info || next.info.pid != merged.info.pid ||
                            next.info.start_epoch_ns != merged.info.start_epoch_ns)) {
      notes.push_back("'" + part.path + "' was left out: it is not a part of this recording (another JVM or session)");
      continue;
    }
    for (std::string& warning : next.warnings) warning = part.path + ": " + warning;
    merger.add(std::move(next));
  }
  merger.finish();
  merged.warnings.insert(merged.warnings.end(), notes.begin(), notes.end());
  return merged;
}

}  // namespace

std::vector<std::string> recordingParts(const std::string& path) {
  std::vector<std::string> paths;
  for (const Part& part : partsOf(path)) paths.push_back(part.path);
  return paths;
}

Recording loadRecordingSet(const std::string& path, const TimeWindow& window, SampleRows rows) {
  // Merging parts (recording_merge.h) renumbers the events' stacks row by row: a rotated
  // recording keeps its rows.
  if (rows == SampleRows::Folded && partsOf(path).size() != 1) rows = SampleRows::Kept;
  return loadSet(path, [&](const std::string& part) { return loadRecording(part, window, 0, rows); });
}

Recording loadMapDataSet(const std::string& path) {
  return loadSet(path, [](const std::string& part) { return loadMapData(part); });
}

}  // namespace stackscope::analysis

// What `stackscope info` shows: the file's structure (header, chunks, index) and what it
// holds (records by type, samples, status reports), without building the event model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/status_summary.h"
#include "format/reader.h"

namespace stackscope::analysis {

struct RecordCount {
  uint32_t type = 0;
  std::string name;  // "sample", "stack", …; "unknown_<type>" for types this reader skips
  uint64_t count = 0;
};

struct FileInspection {
  format::FileHeader header;
  bool indexed = false;  // false: the index was missing or damaged and chunks were scanned
  uint64_t file_size = 0;
  std::vector<format::ChunkInfo> chunks;
  bool has_info = false;
  format::RecordingInfo info;
  std::vector<RecordCount> records;  // in type order
  uint64_t samples = 0;              // sample weights summed
  uint64_t sample_records = 0;       // samples as written: a weighted one counts once
  uint64_t lost = 0;
  StatusSummary status;
  bool ended = false;
  int64_t end_ns = 0;  // RecordingEnd's time, or the last event's
  std::vector<std::string> warnings;
};

// Throws format::FormatError when the file is missing or not a recording.
FileInspection inspectFile(const std::string& path);

}  // namespace stackscope::analysis

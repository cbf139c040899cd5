// The files of a rotating recording (rotation.h) as they are on disk, for the control's
// status and dump (docs/protocol.md): its finished parts still there, and a dump's copy of
// them beside the dump's file in the same naming (format/part_names.h: part N of a dump to
// F goes to F-N, part 0 to F), so that `report F` reads the copy as it reads the recording.
// No JVMTI: unit-tested on its own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stackscope::agent {

struct FinishedPart {
  uint64_t number;  // 0: the file the recording began in
  std::string path;
  uint64_t bytes;  // its size on disk
};

// The parts before part `current` of the recording first written to `first` that are on
// disk, oldest first. With maxfiles=N (max_files > 0) only the N - 1 newest can be left.
std::vector<FinishedPart> finishedParts(const std::string& first, uint64_t current, uint32_t max_files);

// A dump's copy of a recording's finished parts. They are opened at once, while the writer
// waits (a maxfiles= deletion afterwards leaves them readable), and copied later, while it
// goes on in the current part.
class PartCopies {
 public:
  PartCopies(const std::string& first, uint64_t current, uint32_t max_files);
  ~PartCopies();
  PartCopies(const PartCopies&) = delete;
  PartCopies& operator=(const PartCopies&) = delete;

  // Whether a dump to `target` would write over one of the recording's own files (its
  // parts, the current one included): false with `error` then.
  bool mayWrite(const std::string& target, std::string& error) const;
  // Copies each opened part N to partName(target, N) and removes the other files named as
  // parts of `target` (an earlier dump's, which report would read with these), never one of
  // the recording's. The current part is the caller's to copy. False with `error` set.
  bool copy(const std::string& target, std::string& error) const;

  uint64_t current() const { return current_; }
  // The oldest part copied (the current one when none is older), and how many, the current included.
  uint64_t firstPart() const { return parts_.empty() ? current_ : parts_.front().first; }
  size_t files() const { return parts_.size() + 1; }

 private:
  bool isRecordingFile(const std::string& path) const;

  uint64_t current_;
  std::vector<std::pair<uint64_t, int>> parts_;  // (number, open descriptor), oldest first
  std::vector<std::pair<dev_t, ino_t>> own_files_;  // the recording's parts, current included
};

}  // namespace stackscope::agent

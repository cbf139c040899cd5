// Rotation (agent options rotate= and maxfiles=): a recording that runs for days goes on in a
// new file each time the current one is rotate= old or holds rotate= bytes, and with maxfiles=N
// only the newest N files are kept, the oldest deleted as a new one begins. The files are
// named by format/part_names.h: run.ssr, run-1.ssr, run-2.ssr, …
//
// Each file is a whole recording (docs/format.md, "Rotated files"): the writer thread ends
// it, starts the next with fresh ids and forgets every table that grew with the file, which is
// what keeps the agent's memory bounded however long the session runs.
//
// Writer thread only. No JVMTI: unit-tested on its own.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "agent/options.h"

namespace stackscope::agent {

class Rotation {
 public:
  // `first`: the file the recording began in, at monotonic time `start_ns`.
  Rotation(const Options& options, std::string first, int64_t start_ns);

  bool on() const { return interval_ns_ > 0 || max_bytes_ > 0; }
  // Whether the current file is to end now that it holds `file_bytes` at monotonic `now_ns`.
  bool due(int64_t now_ns, uint64_t file_bytes) const {
    return (interval_ns_ > 0 && now_ns - file_start_ns_ >= interval_ns_) || (max_bytes_ > 0 && file_bytes >= max_bytes_);
  }
  // The name of the next file, which begins at `now_ns`.
  std::string next(int64_t now_ns);
  // Once the next file is open: deletes the oldest files beyond maxfiles=. False when one
  // could not be deleted (`error` says which and why; it is forgotten all the same).
  bool opened(std::string& error);

 private:
  int64_t interval_ns_;
  uint64_t max_bytes_;
  uint32_t max_files_;
  std::string first_;
  uint64_t parts_ = 0;  // parts begun after the first
  int64_t file_start_ns_;
  std::deque<std::string> kept_;  // with maxfiles=: the files on disk, oldest first (at most N + 1)
};

}  // namespace stackscope::agent

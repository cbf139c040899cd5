// Opens the agent's recording file: expands %p and %t in file=, and never writes into a file
// another process is writing (or, with overwrite=no, one that already holds a recording):
// then the alternative name with this JVM's pid is written instead (file_name.h).
#pragma once

#include <cstdint>
#include <string>

#include "agent/options.h"
#include "format/writer.h"

namespace stackscope::agent {

struct OpenedRecording {
  bool ok = false;
  std::string path;     // the file being written, when ok
  std::string notice;   // a line for stderr when the named file was busy and overwrite=yes, else empty
  std::string error;    // the whole line for stderr when !ok
};

// `local_time` is the JVM's start as YYYYmmdd-HHMMSS, for %t.
OpenedRecording openRecording(format::RecordingWriter& writer, const Options& options, int64_t pid,
                              const std::string& local_time);

}  // namespace stackscope::agent

#include "agent/recording_file.h"

#include "agent/file_name.h"

namespace stackscope::agent {

OpenedRecording openRecording(format::RecordingWriter& writer, const Options& options, int64_t pid,
                              const std::string& local_time) {
  using Result = format::RecordingWriter::OpenResult;
  OpenedRecording opened;
  const std::string named = expandFileName(options.file, pid, local_time);
  const Result first = writer.tryOpen(named, !options.overwrite);
  if (first == Result::Opened) {
    opened.ok = true;
    opened.path = named;
    return opened;
  }
  if (first == Result::Failed) {
    opened.error = "stackscope: " + writer.lastError();
    return opened;
  }
  // The alternative name may be overwritten even with overwrite=no: it holds this pid, so
  // only a process that is gone can have written it.
  const std::string alternative = withPid(named, std::to_string(pid));
  const std::string why = writer.lastError();
  if (writer.tryOpen(alternative, false) != Result::Opened) {
    opened.error = "stackscope: " + why + ", and " + writer.lastError() + "; running unprofiled";
    return opened;
  }
  opened.ok = true;
  opened.path = alternative;
  // With overwrite=no another name was asked for (`stackscope record` lists the files);
  // otherwise the user expects the file named and is told.
  if (options.overwrite) opened.notice = "stackscope: " + why + "; recording to '" + alternative + "' instead";
  return opened;
}

}  // namespace stackscope::agent

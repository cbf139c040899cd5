// A recording file followed as it is written (`stackscope top` streams the agent's recording
// into one): the map data (strings, methods, stacks, threads) is kept from look to look and
// only the chunks appended since the last look are read into it, so a look costs what is new
// plus the window's events, however long the file has grown. The model of a window is the
// one loadRecording (load.h) builds for it, except that native frames of mixed mode keep the
// names the agent wrote (module+offset): the names found on this machine would take string
// ids the file's next strings use (map_loader.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/native_frame_names.h"
#include "analysis/recording.h"

namespace stackscope::format {
class RecordingReader;
}

namespace stackscope::analysis {

class MapLoader;

class FollowedRecording {
 public:
  // Throws format::FormatError when the file is missing or not (yet) a recording: a file
  // whose header is not all written yet.
  explicit FollowedRecording(const std::string& path);
  ~FollowedRecording();
  FollowedRecording(const FollowedRecording&) = delete;
  FollowedRecording& operator=(const FollowedRecording&) = delete;

  // Reads the chunks written whole since the last look (the map ones into the kept model),
  // then the events of the event chunks that meet `window`: the model of that window, valid
  // until the next look. Its bytes_read counts every byte read of the file since the first look.
  const Recording& look(const TimeWindow& window);
  // Every byte read of the file so far (as the last look's bytes_read, with what opening it read).
  uint64_t bytesRead() const;

 private:
  std::string path_;
  std::unique_ptr<format::RecordingReader> reader_;
  Recording recording_;
  std::unique_ptr<MapLoader> maps_;
  size_t chunks_taken_ = 0;  // of the reader's chunks, those read into the model or set aside

  // Native frames' names (mixed mode) take string ids after the file's, which the file's next
  // strings will take: each look gives them back before reading, then names the frames again
  // from these, found once per frame.
  void unnameNativeFrames();
  void nameNativeFrames();
  std::vector<NativeName> native_names_;
  size_t file_strings_ = 0;  // the strings the file defined, before the names
  struct WrittenName {
    uint32_t method, method_name, source_file;
  };
  std::vector<WrittenName> written_names_;  // what the named methods held before
};

}  // namespace stackscope::analysis

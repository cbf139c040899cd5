#include "analysis/followed_recording.h"

#include <iterator>

#include "analysis/map_loader.h"
#include "format/reader.h"

namespace stackscope::analysis {

FollowedRecording::FollowedRecording(const std::string& path)
    : path_(path), reader_(std::make_unique<format::RecordingReader>(path, true)),
      maps_(std::make_unique<MapLoader>(recording_, MapLoader::NativeFrames::AsWritten)) {}

FollowedRecording::~FollowedRecording() = default;

uint64_t FollowedRecording::bytesRead() const { return reader_->bytesRead(); }

const Recording& FollowedRecording::look(const TimeWindow& window) {
  unnameNativeFrames();
  reader_->followAppended();
  // Map chunks come before the event chunks that refer to them (docs/format.md, invariant
  // 2), and the file is read in order: the map data is complete for every event chunk taken.
  const std::vector<format::ChunkInfo>& chunks = reader_->chunks();
  for (; chunks_taken_ < chunks.size(); ++chunks_taken_)
    if (chunks[chunks_taken_].kind == format::ChunkKind::Map) reader_->readChunk(chunks[chunks_taken_], *maps_);
  recording_.dropEvents();
  recording_.window = window;
  // One thread: a window of a live view is small, and the decoding threads' readers would read
  // again what this one holds.
  readEvents(path_, *reader_, recording_, *maps_, reader_->eventChunks(window.from_ns, window.to_ns), 1);
  nameNativeFrames();
  return recording_;
}

void FollowedRecording::unnameNativeFrames() {
  for (const WrittenName& written : written_names_) {
    MethodInfo& method = recording_.methods[written.method];
    method.method_name = written.method_name;
    method.source_file = written.source_file;
  }
  written_names_.clear();
  recording_.strings.resize(file_strings_);
}

void FollowedRecording::nameNativeFrames() {
  file_strings_ = recording_.strings.size();
  std::vector<NativeName> fresh = findNativeNames(recording_, maps_->takeNativeFrames());
  native_names_.insert(native_names_.end(), std::make_move_iterator(fresh.begin()), std::make_move_iterator(fresh.end()));
  for (const NativeName& name : native_names_) {
    if (name.method >= recording_.methods.size()) continue;
    const MethodInfo& method = recording_.methods[name.method];
    written_names_.push_back({name.method, method.method_name, method.source_file});
  }
  applyNativeNames(recording_, native_names_);
}

}  // namespace stackscope::analysis

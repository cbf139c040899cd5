#include "analysis/followed_recording.h"

#include "analysis/map_loader.h"
#include "format/reader.h"

namespace stackscope::analysis {

FollowedRecording::FollowedRecording(const std::string& path)
    : path_(path), reader_(std::make_unique<format::RecordingReader>(path, true)),
      maps_(std::make_unique<MapLoader>(recording_, MapLoader::NativeFrames::AsWritten)) {}

FollowedRecording::~FollowedRecording() = default;

uint64_t FollowedRecording::bytesRead() const { return reader_->bytesRead(); }

const Recording& FollowedRecording::look(const TimeWindow& window) {
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
  return recording_;
}

}  // namespace stackscope::analysis

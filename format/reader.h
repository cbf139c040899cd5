// Reads a recording file written by RecordingWriter, tolerating torn tails (kill -9) and
// corrupted chunks: those are skipped with a warning, never fatal. Front-end only.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"
#include "format/stack_tree.h"
#include "format/writer.h"

namespace stackscope::format {

class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FileHeader {
  uint16_t version = 0;
  uint16_t oldest_reader = 0;
  uint32_t features = 0;
};

// Receives decoded records in file order. Override what you need.
class RecordVisitor {
 public:
  virtual ~RecordVisitor() = default;
  virtual void info(const RecordingInfo&) {}
  virtual void string(uint32_t /*id*/, std::string_view /*value*/) {}
  virtual void method(const MethodRecord&) {}
  virtual void stack(const StackRecord&) {}
  virtual void thread(const ThreadRecord&) {}
  virtual void annotation(const AnnotationRecord&) {}
  virtual void sample(const SampleRecord&) {}
  virtual void gc(const GcRecord&) {}
  virtual void exception(const ExceptionRecord&) {}
  virtual void alloc(const AllocRecord&) {}
  virtual void objectFree(const ObjectFreeRecord&) {}
  virtual void lock(const LockRecord&) {}
  virtual void classHistogram(const ClassHistogramRecord&) {}
  virtual void threadParent(const ThreadParentRecord&) {}
  virtual void threadStart(const ThreadEventRecord&) {}
  virtual void threadEnd(const ThreadEventRecord&) {}
  virtual void status(const StatusRecord&) {}
  virtual void lost(const LostRecord&) {}
  virtual void end(const RecordingEndRecord&) {}
  virtual void marker(const MarkerRecord&) {}
  virtual void annotationChange(const AnnotationChangeRecord&) {}
  virtual void agentWarning(const AgentWarningRecord&) {}
  virtual void unknown(uint32_t /*type*/, std::string_view /*payload*/) {}
};

class RecordingReader {
 public:
  static constexpr int64_t kBeginning = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

  // Throws FormatError when the file cannot be opened, is not a recording, or needs a
  // newer reader. A missing index or a torn tail only adds warnings. `following`: the file is
  // still being written (followAppended): no index and an incomplete last chunk are expected.
  explicit RecordingReader(const std::string& path, bool following = false);
  ~RecordingReader();
  RecordingReader(const RecordingReader&) = delete;
  RecordingReader& operator=(const RecordingReader&) = delete;

  const FileHeader& header() const { return header_; }
  // Every chunk, in file order (map chunks first when they come from the index). With an
  // index this reads and checks the whole index once; planning a window does not need it.
  const std::vector<ChunkInfo>& chunks();
  // The map chunks, and the event chunks whose time range meets [from_ns, to_ns]: what a
  // window needs, found by binary search in the index without reading all of it.
  std::vector<ChunkInfo> mapChunks();
  std::vector<ChunkInfo> eventChunks(int64_t from_ns = kBeginning, int64_t to_ns = kEnd);
  bool indexed() const { return indexed_; }  // false: index missing, chunks found by scanning
  uint64_t fileSize() const { return file_size_; }
  uint64_t bytesRead() const { return bytes_read_; }  // header, index and chunks read so far
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Decodes one chunk. A corrupted chunk adds a warning and returns false.
  bool readChunk(const ChunkInfo& chunk, RecordVisitor& visitor);
  // The same, with the records handed to Visitor's own member functions (record_decoder.h):
  // for a final visitor class, direct calls the compiler can inline.
  template <typename Visitor>
  bool readChunkTyped(const ChunkInfo& chunk, Visitor& visitor);
  // The chunks about to be read one after the other (a run of `plan`'s, in file order): those
  // that follow each other in the file are then read together, up to kReadAhead bytes at a
  // time, and readChunk takes them from there instead of a system call each. Nothing else is
  // read, so bytesRead() stays what the chunks take.
  void willRead(std::span<const ChunkInfo> chunks) {
    upcoming_.assign(chunks.begin(), chunks.end());
    upcoming_at_ = 0;
  }
  static constexpr uint64_t kReadAhead = 1u << 20;
  // Every map chunk, then the event chunks whose time range meets [from_ns, to_ns].
  void read(RecordVisitor& visitor, int64_t from_ns = kBeginning, int64_t to_ns = kEnd);
  // The chunks `read` decodes, in its order, checked against their headers: for a caller
  // that decodes them itself (the front-end decodes event chunks on several cores, each
  // with a reader of its own: one reader is not for two threads).
  std::vector<ChunkInfo> plan(int64_t from_ns = kBeginning, int64_t to_ns = kEnd);
  // Every map chunk only: ids, names and markers, without decoding any event.
  void readMaps(RecordVisitor& visitor);
  // A digest of the file's header and of every chunk header (which holds the chunk's payload
  // checksum): equal digests mean the same chunks with the same content. Reads every chunk
  // header once, no payload.
  std::string contentFingerprint();
  // For a file still being written (no index: a recording streamed as it is written): takes
  // in the chunks written whole since the last look, reading only their headers, and returns
  // how many came. The writer's next chunk, not all there yet, is left for the next call,
  // without a warning. A finished (indexed) file does not grow: 0.
  size_t followAppended();
  // The last event chunk (the one holding RecordingEnd in a finished recording), if any.
  std::optional<ChunkInfo> lastEventChunk();
  // The latest time of any event chunk (0 when there is none).
  int64_t lastEventTime();

 private:
  void readHeader();
  bool readIndex(bool following);
  bool loadWholeIndex();
  bool readEntry(uint32_t i, ChunkInfo& entry);
  // Entry bytes already read: false when its checksum fails or it points past the index.
  bool parseEntry(const unsigned char* bytes, ChunkInfo& entry) const;
  bool matchesHeader(const ChunkInfo& entry);
  // From `offset` (a chunk's start) on. Following: a valid header whose payload is not all
  // there yet ends the scan, as the writer's next chunk.
  void scanChunks(uint64_t offset, bool following);
  bool readAt(uint64_t offset, void* data, size_t size);
  bool parseChunkHeader(uint64_t offset, ChunkInfo& chunk);
  // Reads, checks and decompresses one chunk: its chunk.raw_size bytes, or nullptr (warned).
  const unsigned char* loadChunk(const ChunkInfo& chunk);
  // The chunk's header and payload as in the file, read with the upcoming chunks that follow
  // it there (willRead); nullptr when the file does not hold them.
  const char* chunkBytes(const ChunkInfo& chunk);
  template <typename Visitor>
  void decodeRecords(const ChunkInfo& chunk, const unsigned char* data, size_t size, Visitor& visitor);
  void warn(std::string message);

  int fd_ = -1;
  std::string path_;
  uint64_t file_size_ = 0;
  uint64_t bytes_read_ = 0;
  bool indexed_ = false;
  bool index_loaded_ = false;  // chunks_ holds every chunk (always so after a scan)
  uint64_t index_offset_ = 0;
  uint64_t scanned_to_ = 0;  // where a scan stopped: the end of the last whole chunk it took
  uint32_t index_count_ = 0;
  uint32_t index_maps_ = 0;
  FileHeader header_;
  std::vector<ChunkInfo> chunks_;
  std::vector<std::string> warnings_;
  std::vector<ChunkInfo> upcoming_;  // willRead's chunks, in file order
  size_t upcoming_at_ = 0;  // the last of them read
  std::string ahead_;  // the file's bytes from ahead_offset_ on, read for chunkBytes
  uint64_t ahead_offset_ = 0;
  std::string raw_;
  StackTree stack_tree_;  // the StackBranch records read so far: later ones extend them
  void* zstd_ctx_ = nullptr;
};

}  // namespace stackscope::format

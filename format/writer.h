// Writes a recording file: header, zstd-compressed map and event chunks, chunk index.
// Used by the agent's writer thread (never from a signal handler) and by tests that build
// recordings by hand. Exception-free: failures are reported by return value and lastError().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/records.h"

namespace stackscope::format {

// Where a chunk is and what it holds: the chunk header's fields, repeated in the index.
struct ChunkInfo {
  uint64_t offset = 0;  // of the chunk header
  ChunkKind kind = ChunkKind::Event;
  uint32_t payload_size = 0;
  uint32_t raw_size = 0;
  uint32_t record_count = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

class RecordingWriter {
 public:
  // An event chunk is cut when its raw size reaches this, even between flushes.
  static constexpr size_t kMaxChunkRawBytes = 4u << 20;

  RecordingWriter() = default;
  ~RecordingWriter();
  RecordingWriter(const RecordingWriter&) = delete;
  RecordingWriter& operator=(const RecordingWriter&) = delete;

  enum class OpenResult { Opened, Busy, NotEmpty, Failed };
  // Opens `path` without truncating it and takes an exclusive flock(2) on it; only once the
  // file is this writer's is it truncated and the header written, so no two processes ever
  // write one file. The kernel drops the lock when the process dies: a crashed JVM leaves
  // nothing locked. Busy: another process holds the lock. NotEmpty: `keep_existing` and the
  // file already holds data. Busy, NotEmpty and Failed leave the file untouched and closed.
  OpenResult tryOpen(const std::string& path, bool keep_existing);
  // tryOpen(path, false) == Opened; the reason is in lastError() otherwise.
  bool open(const std::string& path);

  // Map data. Ids start at 1; 0 means "none". Interned values are written once.
  uint32_t internString(std::string_view value);
  // `frames` innermost first. A new stack is written as a StackBranch: the id of a known
  // stack, how many of its outer frames it shares, and its own frames (docs/format.md).
  uint32_t internStack(const Frame* frames, size_t count);
  void writeInfo(const RecordingInfo& info);
  void writeMethod(const MethodRecord& method);  // the caller owns method ids
  void writeThread(const ThreadRecord& thread);  // the caller owns thread ids
  void writeAnnotation(const AnnotationRecord& annotation);  // the caller owns annotation ids

  // Event data, in roughly increasing time (small inversions are allowed).
  void writeSample(const SampleRecord& sample);
  void writeGc(const GcRecord& gc);
  void writeException(const ExceptionRecord& exception);
  void writeAlloc(const AllocRecord& alloc);
  void writeObjectFree(const ObjectFreeRecord& freed);
  void writeLock(const LockRecord& lock);
  void writeClassHistogram(const ClassHistogramRecord& histogram);
  void writeThreadParent(const ThreadParentRecord& parent);  // goes to the map chunk, like markers
  void writeThreadStart(const ThreadEventRecord& event);
  void writeThreadEnd(const ThreadEventRecord& event);
  void writeStatus(const StatusRecord& status);
  void writeLost(const LostRecord& lost);
  void writeMarker(const MarkerRecord& marker);  // goes to the map chunk (docs/format.md)
  void writeAnnotationChange(const AnnotationChangeRecord& change);
  void writeAgentWarning(const AgentWarningRecord& warning);  // goes to the map chunk, like markers

  // Writes the pending map chunk, then the pending event chunk. Every flushed chunk is
  // complete on disk (write(2) returned), so it survives a kill -9 of the process.
  bool flush();
  // Writes the RecordingEnd record, flushes, appends the index and trailer, closes the file.
  // The writer may then open another file, which starts afresh: no string, stack or chunk
  // of the one before is known to it.
  bool finish(int64_t end_time_ns);
  // Rotation: finishes this file and goes on in `path`, a new file that begins with the last
  // RecordingInfo written. Ids start again: the caller writes again every map record (method,
  // thread, annotation) that the new file's events refer to. False with lastError() set.
  bool continueIn(const std::string& path, int64_t end_time_ns);
  // The size of the file the last continueIn finished (0 before any).
  uint64_t finishedFileBytes() const { return finished_file_bytes_; }

  // Flushes, then writes a copy of the recording so far to `path`: every chunk written, with
  // an index and trailer, readable on its own; there is no RecordingEnd (the recording goes on),
  // so a reader ends it at its last event. The recording itself is untouched.
  bool copyTo(const std::string& path, std::string& error);

  bool isOpen() const { return fd_ >= 0; }
  const std::string& lastError() const { return error_; }
  uint64_t bytesWritten() const { return offset_; }
  uint64_t samplesWritten() const { return samples_; }

 private:
  struct PendingChunk {
    std::string raw;
    uint32_t records = 0;
    int64_t start_ns = INT64_MAX;
    int64_t end_ns = INT64_MIN;
    int64_t last_ns = 0;  // for time deltas inside the chunk
  };
  // The stacks written so far as a tree rooted at their outermost frame: a new stack walks
  // it as far as it matches a known one and writes only the frames below that point.
  struct StackNodeKey {
    uint32_t parent;  // node index, 0 = the root
    Frame frame;
    bool operator==(const StackNodeKey&) const = default;
  };
  struct StackNodeKeyHash {
    size_t operator()(const StackNodeKey& key) const;
  };
  struct StackNode {
    uint32_t owner = 0;  // a stack whose path goes through this node: what a branch names
    uint32_t depth = 0;  // frames from the root, this one included
    uint32_t stack = 0;  // the stack that ends here, 0 = none yet
  };

  // The time samples written since the event chunk's last other record: one SampleRun record
  // (docs/format.md), built column by column and written when another event record begins or
  // the chunk is written.
  struct SampleRun {
    std::array<std::string, kSampleRunColumns> columns;
    uint32_t count = 0;
    uint32_t present = kRunRequiredColumns;  // optional columns join once a sample needs them
  };

  // Appends the open sample run to the event chunk as one record.
  void closeSampleRun();
  size_t pendingEventBytes() const;
  void beginRecord(PendingChunk& chunk, RecordType type, std::string& body);
  void endRecord(PendingChunk& chunk, RecordType type, const std::string& body);
  void putEventTime(PendingChunk& chunk, std::string& body, int64_t time_ns);
  // The time of a record older readers skip: a delta from the running time that leaves it
  // where it was, so a reader that skips the record keeps the times after it right.
  void putSkippableEventTime(PendingChunk& chunk, std::string& body, int64_t time_ns);
  bool writeChunk(ChunkKind kind, PendingChunk& chunk);
  bool writeHeader();
  // The index of `chunks` and the trailer, for an index written at `index_offset`.
  static std::string indexAndTrailer(std::vector<ChunkInfo> chunks, uint64_t index_offset);
  bool writeAll(const void* data, size_t size);
  bool fail(std::string message);
  // Forgets what the file before wrote (strings, stacks, chunks), keeping the buffers.
  void forgetFile();

  int fd_ = -1;
  uint64_t offset_ = 0;
  uint64_t finished_file_bytes_ = 0;
  uint64_t samples_ = 0;
  int64_t last_event_end_ = INT64_MIN;
  std::string error_;
  RecordingInfo info_;  // the last written, for the next file of a rotation
  std::string scratch_;
  std::string compressed_;
  void* zstd_ctx_ = nullptr;
  PendingChunk map_;
  PendingChunk events_;
  SampleRun run_;
  std::vector<ChunkInfo> index_;
  std::unordered_map<std::string, uint32_t> strings_;
  std::unordered_map<StackNodeKey, uint32_t, StackNodeKeyHash> stack_children_;
  std::vector<StackNode> stack_nodes_{StackNode{}};  // [0] is the root, the empty path
  uint32_t stack_count_ = 0;
};

}  // namespace stackscope::format

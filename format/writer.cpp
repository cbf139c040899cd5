#include "format/writer.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "format/bytes.h"
#include "format/file_copy.h"
#include "format/layout.h"

namespace stackscope::format {

namespace {
// Event chunks, written every flush: fast, and within a few percent of the best ratio on
// samples. Map chunks (names, methods, stacks: most of a varied recording's bytes, written as
// new ones come): javac's at 1 ms are 5.4 % smaller at 7, for 5 ms more of the writer thread's
// CPU in a 14 s run and a zstd context of 3.5 MiB instead of 1.
constexpr int kEventZstdLevel = 3;
constexpr int kMapZstdLevel = 7;
}

size_t RecordingWriter::StackNodeKeyHash::operator()(const StackNodeKey& key) const {
  const uint64_t frame = (uint64_t{key.frame.method} << 32) ^ static_cast<uint32_t>(key.frame.bci);
  return std::hash<uint64_t>{}(frame * 0x9e3779b97f4a7c15ull ^ key.parent);
}

RecordingWriter::~RecordingWriter() {
  if (fd_ >= 0) ::close(fd_);
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(zstd_ctx_));
}

bool RecordingWriter::fail(std::string message) {
  error_ = std::move(message);
  return false;
}

bool RecordingWriter::open(const std::string& path) { return tryOpen(path, false) == OpenResult::Opened; }

RecordingWriter::OpenResult RecordingWriter::tryOpen(const std::string& path, bool keep_existing) {
  // O_CLOEXEC: a child process must not inherit the descriptor, and with it the lock.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    fail("cannot create '" + path + "': " + std::strerror(errno));
    return OpenResult::Failed;
  }
  auto refuse = [&](OpenResult result, std::string message) {
    ::close(fd);
    fail(std::move(message));
    return result;
  };
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return refuse(OpenResult::Busy, "'" + path + "' is being written by another process");
    return refuse(OpenResult::Failed, "cannot lock '" + path + "': " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return refuse(OpenResult::Failed, "cannot stat '" + path + "': " + std::strerror(errno));
  if (keep_existing && st.st_size > 0)
    return refuse(OpenResult::NotEmpty, "'" + path + "' already holds a recording");
  if (st.st_size > 0 && ::ftruncate(fd, 0) != 0)
    return refuse(OpenResult::Failed, "cannot truncate '" + path + "': " + std::strerror(errno));
  fd_ = fd;
  forgetFile();
  return writeHeader() ? OpenResult::Opened : OpenResult::Failed;
}

void RecordingWriter::forgetFile() {
  offset_ = 0;
  samples_ = 0;
  last_event_end_ = INT64_MIN;
  map_ = {};
  events_ = {};
  run_ = {};
  index_.clear();
  // Swapped out, not cleared: a rotation is what gives their memory back.
  std::unordered_map<std::string, uint32_t>().swap(strings_);
  std::unordered_map<StackNodeKey, uint32_t, StackNodeKeyHash>().swap(stack_children_);
  std::vector<StackNode>{StackNode{}}.swap(stack_nodes_);
  stack_count_ = 0;
}

bool RecordingWriter::continueIn(const std::string& path, int64_t end_time_ns) {
  if (!finish(end_time_ns)) return false;
  finished_file_bytes_ = offset_;
  if (!open(path)) return false;
  writeInfo(info_);
  return true;
}

bool RecordingWriter::writeHeader() {
  if (!zstd_ctx_) zstd_ctx_ = ZSTD_createCCtx();
  if (!zstd_ctx_) return fail("cannot create a zstd context");
  std::string header(reinterpret_cast<const char*>(layout::kFileMagic), sizeof(layout::kFileMagic));
  putFixed<uint16_t>(header, kFormatVersion);
  putFixed<uint16_t>(header, kOldestReaderVersion);
  putFixed<uint32_t>(header, kKnownRequiredFeatures);
  return writeAll(header.data(), header.size());
}

bool RecordingWriter::writeAll(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(std::string("write failed: ") + std::strerror(errno));
    }
    p += n;
    size -= static_cast<size_t>(n);
    offset_ += static_cast<uint64_t>(n);
  }
  return true;
}

// Records are `type varint, length varint, body`; the body is built in scratch_ first. An
// event record ends the open sample run: the file keeps the order events were written in.
void RecordingWriter::beginRecord(PendingChunk& chunk, RecordType, std::string& body) {
  if (&chunk == &events_) closeSampleRun();
  body.clear();
}

void RecordingWriter::closeSampleRun() {
  if (run_.count == 0) return;
  scratch_.clear();
  putVarint(scratch_, run_.count);
  putVarint(scratch_, run_.present);
  for (uint32_t c = 0; c < kSampleRunColumns; ++c) {
    if (run_.present & (1u << c)) putBytes(scratch_, run_.columns[c]);
    run_.columns[c].clear();
  }
  putVarint(events_.raw, static_cast<uint32_t>(RecordType::SampleRun));
  putBytes(events_.raw, scratch_);
  // A chunk's record count counts a run's samples: readers size their event tables by it.
  events_.records += run_.count;
  run_.count = 0;
  run_.present = kRunRequiredColumns;
}

size_t RecordingWriter::pendingEventBytes() const {
  size_t bytes = events_.raw.size();
  for (const std::string& column : run_.columns) bytes += column.size();
  return bytes;
}

void RecordingWriter::endRecord(PendingChunk& chunk, RecordType type, const std::string& body) {
  putVarint(chunk.raw, static_cast<uint32_t>(type));
  putBytes(chunk.raw, body);
  ++chunk.records;
}

void RecordingWriter::putEventTime(PendingChunk& chunk, std::string& body, int64_t time_ns) {
  putSigned(body, time_ns - chunk.last_ns);
  chunk.last_ns = time_ns;
  if (time_ns < chunk.start_ns) chunk.start_ns = time_ns;
  if (time_ns > chunk.end_ns) chunk.end_ns = time_ns;
}

void RecordingWriter::putSkippableEventTime(PendingChunk& chunk, std::string& body, int64_t time_ns) {
  const int64_t running_ns = chunk.last_ns;
  putEventTime(chunk, body, time_ns);
  chunk.last_ns = running_ns;
}

uint32_t RecordingWriter::internString(std::string_view value) {
  auto [it, inserted] = strings_.try_emplace(std::string(value), static_cast<uint32_t>(strings_.size() + 1));
  if (inserted) {
    beginRecord(map_, RecordType::String, scratch_);
    putVarint(scratch_, it->second);
    putBytes(scratch_, value);
    endRecord(map_, RecordType::String, scratch_);
  }
  return it->second;
}

// Outermost frame first down the tree: the frames stacks share are their callers (a thread's
// entry, the framework, the loop), and they differ where the work is, near the top.
uint32_t RecordingWriter::internStack(const Frame* frames, size_t count) {
  uint32_t node = 0;
  size_t shared = 0;
  for (; shared < count; ++shared) {
    const auto child = stack_children_.find({node, frames[count - 1 - shared]});
    if (child == stack_children_.end()) break;
    node = child->second;
  }
  if (stack_nodes_[node].stack != 0 && shared == count) return stack_nodes_[node].stack;

  const uint32_t id = ++stack_count_;
  beginRecord(map_, RecordType::StackBranch, scratch_);
  putVarint(scratch_, id);
  putVarint(scratch_, stack_nodes_[node].owner);
  putVarint(scratch_, shared);
  putVarint(scratch_, count - shared);
  for (size_t i = count - shared; i-- > 0;) {
    putVarint(scratch_, frames[i].method);
    putSigned(scratch_, frames[i].bci);
    const auto child = static_cast<uint32_t>(stack_nodes_.size());
    stack_nodes_.push_back({id, stack_nodes_[node].depth + 1, 0});
    stack_children_.emplace(StackNodeKey{node, frames[i]}, child);
    node = child;
  }
  endRecord(map_, RecordType::StackBranch, scratch_);
  stack_nodes_[node].stack = id;
  return id;
}

void RecordingWriter::writeInfo(const RecordingInfo& info) {
  if (&info != &info_) info_ = info;
  beginRecord(map_, RecordType::RecordingInfo, scratch_);
  putSigned(scratch_, info.start_epoch_ns);
  putBytes(scratch_, info.mode);
  putSigned(scratch_, info.interval_ns);
  putSigned(scratch_, info.status_interval_ns);
  putSigned(scratch_, info.pid);
  putBytes(scratch_, info.jvm);
  putBytes(scratch_, info.options);
  putVarint(scratch_, static_cast<uint8_t>(info.non_safepoint_debug));
  if (info.sample_metrics != 0 || !info.boot_id.empty()) putVarint(scratch_, info.sample_metrics);
  if (!info.boot_id.empty()) putBytes(scratch_, info.boot_id);
  endRecord(map_, RecordType::RecordingInfo, scratch_);
}

void RecordingWriter::writeMethod(const MethodRecord& method) {
  beginRecord(map_, RecordType::Method, scratch_);
  putVarint(scratch_, method.id);
  putVarint(scratch_, method.class_name);
  putVarint(scratch_, method.method_name);
  putVarint(scratch_, method.signature);
  putVarint(scratch_, method.source_file);
  putVarint(scratch_, method.lines.size());
  // Deltas (kFeatureLineDeltas): a table's bcis and lines climb by a few at a time; javac's
  // file at 1 ms is 13 % smaller with them.
  LineEntry previous{0, 0};
  for (const LineEntry& entry : method.lines) {
    putSigned(scratch_, static_cast<int64_t>(entry.bci) - previous.bci);
    putSigned(scratch_, static_cast<int64_t>(entry.line) - previous.line);
    previous = entry;
  }
  if (method.native_module != 0 || method.code_source != 0) {
    putVarint(scratch_, method.native_module);
    putVarint(scratch_, method.native_build_id);
    putVarint(scratch_, method.native_address);
  }
  if (method.code_source != 0) putVarint(scratch_, method.code_source);
  endRecord(map_, RecordType::Method, scratch_);
}

void RecordingWriter::writeThread(const ThreadRecord& thread) {
  beginRecord(map_, RecordType::Thread, scratch_);
  putVarint(scratch_, thread.id);
  putBytes(scratch_, thread.name);
  putSigned(scratch_, thread.os_tid);
  putSigned(scratch_, thread.java_id);
  if (thread.is_virtual) putVarint(scratch_, 1);  // optional flags: bit 0 virtual
  endRecord(map_, RecordType::Thread, scratch_);
}

void RecordingWriter::writeAnnotation(const AnnotationRecord& annotation) {
  beginRecord(map_, RecordType::Annotation, scratch_);
  putVarint(scratch_, annotation.id);
  for (uint32_t field : annotation.fields) putVarint(scratch_, field);
  endRecord(map_, RecordType::Annotation, scratch_);
}

// Field by field into the open run's columns. An optional column is written only once a sample
// of the run has a value other than its default; the samples before get the default then.
void RecordingWriter::writeSample(const SampleRecord& sample) {
  auto& columns = run_.columns;
  putEventTime(events_, columns[kRunTime], sample.time_ns);  // each sample moves the running time
  putVarint(columns[kRunThread], sample.thread);
  putVarint(columns[kRunStack], sample.stack);
  putVarint(columns[kRunState], static_cast<uint8_t>(sample.state));
  const auto optional = [&](SampleRunColumn column, uint64_t value, uint64_t default_value) {
    const uint32_t bit = 1u << column;
    if (!(run_.present & bit)) {
      if (value == default_value) return;
      for (uint32_t i = 0; i < run_.count; ++i) putVarint(columns[column], default_value);
      run_.present |= bit;
    }
    putVarint(columns[column], value);
  };
  optional(kRunKind, static_cast<uint8_t>(sample.kind), static_cast<uint8_t>(SampleKind::Mode));
  optional(kRunWeight, sample.weight, 1);
  optional(kRunAnnotation, sample.annotation, 0);
  optional(kRunCarrier, sample.carrier, 0);
  optional(kRunCpuUs, sample.cpu_us, 0);
  optional(kRunAllocBytes, sample.alloc_bytes, 0);
  ++run_.count;
  samples_ += sample.weight;
  if (pendingEventBytes() >= kMaxChunkRawBytes) flush();
}

// Gc and Exception records came after Sample: their times do not move the running time, so
// readers older than them skip them and keep the following times right (docs/format.md).
void RecordingWriter::writeGc(const GcRecord& gc) {
  beginRecord(events_, RecordType::Gc, scratch_);
  putSkippableEventTime(events_, scratch_, gc.time_ns);
  putSigned(scratch_, gc.duration_ns);
  putVarint(scratch_, gc.collector);
  putVarint(scratch_, gc.cause);
  endRecord(events_, RecordType::Gc, scratch_);
  if (events_.raw.size() >= kMaxChunkRawBytes) flush();
}

void RecordingWriter::writeException(const ExceptionRecord& exception) {
  beginRecord(events_, RecordType::Exception, scratch_);
  putSkippableEventTime(events_, scratch_, exception.time_ns);
  putVarint(scratch_, exception.thread);
  putVarint(scratch_, exception.stack);
  if (exception.annotation != 0) putVarint(scratch_, exception.annotation);
  endRecord(events_, RecordType::Exception, scratch_);
  if (events_.raw.size() >= kMaxChunkRawBytes) flush();
}

// Alloc and ObjectFree came later still, the same way.
void RecordingWriter::writeAlloc(const AllocRecord& alloc) {
  beginRecord(events_, RecordType::Alloc, scratch_);
  putSkippableEventTime(events_, scratch_, alloc.time_ns);
  putVarint(scratch_, alloc.thread);
  putVarint(scratch_, alloc.stack);
  putVarint(scratch_, alloc.class_name);
  putVarint(scratch_, alloc.size);
  putVarint(scratch_, alloc.interval);
  if (alloc.annotation != 0 || alloc.tag != 0) putVarint(scratch_, alloc.annotation);
  if (alloc.tag != 0) putVarint(scratch_, alloc.tag);
  endRecord(events_, RecordType::Alloc, scratch_);
  if (events_.raw.size() >= kMaxChunkRawBytes) flush();
}

void RecordingWriter::writeObjectFree(const ObjectFreeRecord& freed) {
  beginRecord(events_, RecordType::ObjectFree, scratch_);
  putSkippableEventTime(events_, scratch_, freed.time_ns);
  putVarint(scratch_, freed.tag);
  endRecord(events_, RecordType::ObjectFree, scratch_);
  if (events_.raw.size() >= kMaxChunkRawBytes) flush();
}

// Like Gc and Exception, its time does not move the running time (docs/format.md).
void RecordingWriter::writeClassHistogram(const ClassHistogramRecord& histogram) {
  beginRecord(events_, RecordType::ClassHistogram, scratch_);
  putSkippableEventTime(events_, scratch_, histogram.time_ns);
  putSigned(scratch_, histogram.pause_ns);
  putVarint(scratch_, histogram.classes.size());
  for (const ClassCountEntry& c : histogram.classes) {
    putVarint(scratch_, c.stack);
    putVarint(scratch_, c.instances);
    putVarint(scratch_, c.bytes);
  }
  endRecord(events_, RecordType::ClassHistogram, scratch_);
  if (events_.raw.size() >= kMaxChunkRawBytes) flush();
}

// Map data, like markers: which thread started which holds for every window (docs/format.md).
// Its time does not move the map's running time, so readers before it skip it safely.
void RecordingWriter::writeThreadParent(const ThreadParentRecord& parent) {
  beginRecord(map_, RecordType::ThreadParent, scratch_);
  putSkippableEventTime(map_, scratch_, parent.time_ns);
  putVarint(scratch_, parent.thread);
  putVarint(scratch_, parent.stack);
  putSigned(scratch_, parent.child_java_id);
  endRecord(map_, RecordType::ThreadParent, scratch_);
}

// Like Gc and Exception, its time does not move the running time (readers before it skip it).
void RecordingWriter::writeLock(const LockRecord& lock) {
  beginRecord(events_, RecordType::Lock, scratch_);
  putSkippableEventTime(events_, scratch_, lock.time_ns);
  putVarint(scratch_, lock.thread);
  putVarint(scratch_, lock.stack);
  putVarint(scratch_, lock.annotation);
  putSigned(scratch_, lock.duration_ns);
  putVarint(scratch_, static_cast<uint8_t>(lock.kind));
  putVarint(scratch_, lock.lock_class);
  // Optional trailing fields, written only when the owner is known.
  if (lock.owner != 0 || lock.owner_stack != 0) {
    putVarint(scratch_, lock.owner);
    putVarint(scratch_, lock.owner_stack);
  }
  endRecord(events_, RecordType::Lock, scratch_);
  if (events_.raw.size() >= kMaxChunkRawBytes) flush();
}

void RecordingWriter::writeThreadStart(const ThreadEventRecord& event) {
  beginRecord(events_, RecordType::ThreadStart, scratch_);
  putEventTime(events_, scratch_, event.time_ns);
  putVarint(scratch_, event.thread);
  endRecord(events_, RecordType::ThreadStart, scratch_);
}

void RecordingWriter::writeThreadEnd(const ThreadEventRecord& event) {
  beginRecord(events_, RecordType::ThreadEnd, scratch_);
  putEventTime(events_, scratch_, event.time_ns);
  putVarint(scratch_, event.thread);
  endRecord(events_, RecordType::ThreadEnd, scratch_);
}

void RecordingWriter::writeStatus(const StatusRecord& status) {
  beginRecord(events_, RecordType::Status, scratch_);
  putEventTime(events_, scratch_, status.time_ns);
  putVarint(scratch_, status.cpu_load_permille);
  putVarint(scratch_, status.gc_count);
  putVarint(scratch_, status.gc_time_ns);
  putVarint(scratch_, status.heap_used);
  putVarint(scratch_, status.heap_committed);
  putVarint(scratch_, status.live_threads);
  putVarint(scratch_, status.machine_cpu_permille_plus1);
  putVarint(scratch_, status.cpus);
  endRecord(events_, RecordType::Status, scratch_);
}

// In the map chunk, like markers: read with the map data, so every report shows it whatever
// time window it reads.
void RecordingWriter::writeAgentWarning(const AgentWarningRecord& warning) {
  beginRecord(map_, RecordType::AgentWarning, scratch_);
  putEventTime(map_, scratch_, warning.time_ns);
  putBytes(scratch_, warning.text);
  endRecord(map_, RecordType::AgentWarning, scratch_);
}

void RecordingWriter::writeLost(const LostRecord& lost) {
  beginRecord(events_, RecordType::Lost, scratch_);
  putEventTime(events_, scratch_, lost.time_ns);
  putVarint(scratch_, static_cast<uint8_t>(lost.reason));
  putVarint(scratch_, lost.count);
  endRecord(events_, RecordType::Lost, scratch_);
}

// Markers are few and bound every marker snapshot, so they travel in map chunks: a reader
// finds them all without decoding a single event chunk.
void RecordingWriter::writeMarker(const MarkerRecord& marker) {
  beginRecord(map_, RecordType::Marker, scratch_);
  putEventTime(map_, scratch_, marker.time_ns);
  putVarint(scratch_, marker.thread);
  putVarint(scratch_, static_cast<uint8_t>(marker.kind));
  putVarint(scratch_, marker.name);
  endRecord(map_, RecordType::Marker, scratch_);
}

void RecordingWriter::writeAnnotationChange(const AnnotationChangeRecord& change) {
  beginRecord(events_, RecordType::AnnotationChange, scratch_);
  putEventTime(events_, scratch_, change.time_ns);
  putVarint(scratch_, change.thread);
  putVarint(scratch_, change.annotation);
  endRecord(events_, RecordType::AnnotationChange, scratch_);
}

bool RecordingWriter::writeChunk(ChunkKind kind, PendingChunk& chunk) {
  if (chunk.records == 0) return true;
  auto* ctx = static_cast<ZSTD_CCtx*>(zstd_ctx_);
  ZSTD_CCtx_setParameter(ctx, ZSTD_c_compressionLevel, kind == ChunkKind::Map ? kMapZstdLevel : kEventZstdLevel);
  compressed_.resize(ZSTD_compressBound(chunk.raw.size()));
  const size_t size = ZSTD_compress2(ctx, compressed_.data(), compressed_.size(), chunk.raw.data(), chunk.raw.size());
  if (ZSTD_isError(size)) return fail(std::string("zstd: ") + ZSTD_getErrorName(size));
  const int64_t start = kind == ChunkKind::Map ? 0 : chunk.start_ns;
  // Event chunks' end times never decrease (a range may be wider than its events, never
  // narrower), so a reader can binary-search the index by time.
  const int64_t end = kind == ChunkKind::Map ? 0 : std::max(chunk.end_ns, last_event_end_);
  if (kind == ChunkKind::Event) last_event_end_ = end;

  std::string header;
  putFixed<uint32_t>(header, layout::kChunkMagic);
  putFixed<uint8_t>(header, static_cast<uint8_t>(kind));
  putFixed<uint8_t>(header, layout::kCompressionZstd);
  putFixed<uint16_t>(header, 0);
  putFixed<uint32_t>(header, static_cast<uint32_t>(size));
  putFixed<uint32_t>(header, static_cast<uint32_t>(chunk.raw.size()));
  putFixed<uint32_t>(header, chunk.records);
  putFixed<uint32_t>(header, laneChecksum(compressed_.data(), size));
  putFixed<int64_t>(header, start);
  putFixed<int64_t>(header, end);
  putFixed<uint32_t>(header, fnv1a(header.data(), header.size()));

  index_.push_back({offset_, kind, static_cast<uint32_t>(size), static_cast<uint32_t>(chunk.raw.size()), chunk.records, start, end});
  // One write per chunk keeps a torn tail to the last chunk only.
  header.append(compressed_.data(), size);
  if (!writeAll(header.data(), header.size())) return false;
  chunk = PendingChunk{};
  return true;
}

bool RecordingWriter::flush() {
  if (fd_ < 0) return fail("recording is not open");
  // Map before events: an event chunk never refers to an id defined after it.
  closeSampleRun();
  return writeChunk(ChunkKind::Map, map_) && writeChunk(ChunkKind::Event, events_);
}

std::string RecordingWriter::indexAndTrailer(std::vector<ChunkInfo> chunks, uint64_t index_offset) {
  std::string index;
  // Map entries first: a reader takes them all, and the event entries after them by time.
  std::stable_partition(chunks.begin(), chunks.end(), [](const ChunkInfo& c) { return c.kind == ChunkKind::Map; });
  const auto maps = std::count_if(chunks.begin(), chunks.end(), [](const ChunkInfo& c) { return c.kind == ChunkKind::Map; });
  putFixed<uint32_t>(index, layout::kIndexMagic);
  putFixed<uint32_t>(index, static_cast<uint32_t>(chunks.size()));
  putFixed<uint32_t>(index, static_cast<uint32_t>(maps));
  for (const ChunkInfo& entry : chunks) {
    const size_t entry_start = index.size();
    putFixed<uint64_t>(index, entry.offset);
    putFixed<uint8_t>(index, static_cast<uint8_t>(entry.kind));
    putFixed<uint32_t>(index, entry.payload_size);
    putFixed<uint32_t>(index, entry.raw_size);
    putFixed<uint32_t>(index, entry.record_count);
    putFixed<int64_t>(index, entry.start_ns);
    putFixed<int64_t>(index, entry.end_ns);
    putFixed<uint32_t>(index, fnv1a(index.data() + entry_start, layout::kIndexEntryChecksummed));
  }
  putFixed<uint32_t>(index, fnv1a(index.data(), index.size()));
  putFixed<uint64_t>(index, index_offset);
  index.append(reinterpret_cast<const char*>(layout::kTrailerMagic), sizeof(layout::kTrailerMagic));
  return index;
}

bool RecordingWriter::copyTo(const std::string& path, std::string& error) {
  if (!flush()) {
    error = error_;
    return false;
  }
  // The recording's own bytes, read back through this process's descriptor (the file may
  // have been renamed or removed since it was opened).
  const int source = ::open(("/proc/self/fd/" + std::to_string(fd_)).c_str(), O_RDONLY | O_CLOEXEC);
  if (source < 0) {
    error = "cannot read the recording: " + std::string(std::strerror(errno));
    return false;
  }
  const bool ok = copyFileTo(source, offset_, indexAndTrailer(index_, offset_), path, error);
  ::close(source);
  return ok;
}

bool RecordingWriter::finish(int64_t end_time_ns) {
  if (fd_ < 0) return fail("recording is not open");
  beginRecord(events_, RecordType::RecordingEnd, scratch_);
  putEventTime(events_, scratch_, end_time_ns);
  endRecord(events_, RecordType::RecordingEnd, scratch_);
  if (!flush()) return false;

  const std::string index = indexAndTrailer(index_, offset_);
  const bool ok = writeAll(index.data(), index.size());
  ::close(fd_);
  fd_ = -1;
  return ok;
}

}  // namespace stackscope::format

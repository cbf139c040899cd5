#include "format/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "format/bytes.h"
#include "format/layout.h"

namespace stackscope::format {

namespace {
constexpr uint32_t kMaxRawChunk = 256u << 20;  // a larger raw size can only be corruption

std::string at(uint64_t offset) { return "offset " + std::to_string(offset); }
}  // namespace

RecordingReader::RecordingReader(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw FormatError("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw FormatError("'" + path + "' is not a regular file");
  }
  file_size_ = static_cast<uint64_t>(st.st_size);
  zstd_ctx_ = ZSTD_createDCtx();
  try {
    readHeader();
    if (!readIndex()) scanChunks();
  } catch (...) {
    ::close(fd_);
    ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_ctx_));
    throw;
  }
}

RecordingReader::~RecordingReader() {
  ::close(fd_);
  ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(zstd_ctx_));
}

void RecordingReader::warn(std::string message) { warnings_.push_back(std::move(message)); }

bool RecordingReader::readAt(uint64_t offset, void* data, size_t size) {
  if (offset > file_size_ || size > file_size_ - offset) return false;
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
    bytes_read_ += static_cast<uint64_t>(n);
  }
  return true;
}

void RecordingReader::readHeader() {
  unsigned char h[layout::kFileHeaderSize];
  if (file_size_ == 0) throw FormatError("'" + path_ + "' is empty: not a stackscope recording");
  if (!readAt(0, h, sizeof h) || std::memcmp(h, layout::kFileMagic, sizeof layout::kFileMagic) != 0)
    throw FormatError("'" + path_ + "' is not a stackscope recording (bad magic)");
  header_.version = getFixed<uint16_t>(h + 8);
  header_.oldest_reader = getFixed<uint16_t>(h + 10);
  header_.features = getFixed<uint32_t>(h + 12);
  if (header_.oldest_reader > kFormatVersion)
    throw FormatError("'" + path_ + "' is format version " + std::to_string(header_.version) +
                      " and needs a reader of version " + std::to_string(header_.oldest_reader) +
                      " or newer; this stackscope reads version " + std::to_string(kFormatVersion));
  const uint32_t unknown_required = header_.features & kRequiredFeatureMask & ~uint32_t{kFeatureZstdChunks};
  if (unknown_required)
    throw FormatError("'" + path_ + "' uses features this reader does not know (bits " + std::to_string(unknown_required) + ")");
}

bool RecordingReader::parseChunkHeader(uint64_t offset, ChunkInfo& chunk) {
  unsigned char h[layout::kChunkHeaderSize];
  if (!readAt(offset, h, sizeof h)) return false;
  if (getFixed<uint32_t>(h) != layout::kChunkMagic) return false;
  if (getFixed<uint32_t>(h + layout::kChunkHeaderChecksummed) != fnv1a(h, layout::kChunkHeaderChecksummed)) return false;
  chunk.offset = offset;
  chunk.kind = static_cast<ChunkKind>(h[4]);
  chunk.payload_size = getFixed<uint32_t>(h + 8);
  chunk.raw_size = getFixed<uint32_t>(h + 12);
  chunk.record_count = getFixed<uint32_t>(h + 16);
  chunk.start_ns = getFixed<int64_t>(h + 24);
  chunk.end_ns = getFixed<int64_t>(h + 32);
  return h[5] == layout::kCompressionZstd && chunk.payload_size <= layout::kMaxChunkPayload;
}

bool RecordingReader::readIndex() {
  const uint64_t min_size = layout::kFileHeaderSize + layout::kTrailerSize;
  unsigned char trailer[layout::kTrailerSize];
  if (file_size_ < min_size || !readAt(file_size_ - layout::kTrailerSize, trailer, sizeof trailer) ||
      std::memcmp(trailer + 8, layout::kTrailerMagic, sizeof layout::kTrailerMagic) != 0) {
    warn("the recording has no index (it did not finish: was the JVM killed?); chunks were found by scanning");
    return false;
  }
  const uint64_t index_offset = getFixed<uint64_t>(trailer);
  const uint64_t index_end = file_size_ - layout::kTrailerSize;
  std::string index;
  if (index_offset < layout::kFileHeaderSize || index_offset + 12 > index_end) {
    warn("the chunk index is damaged (bad offset); chunks were found by scanning");
    return false;
  }
  index.resize(index_end - index_offset);
  if (!readAt(index_offset, index.data(), index.size())) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(index.data());
  const uint32_t count = getFixed<uint32_t>(p + 4);
  if (getFixed<uint32_t>(p) != layout::kIndexMagic || index.size() != 8 + uint64_t{count} * layout::kIndexEntrySize + 4 ||
      getFixed<uint32_t>(p + index.size() - 4) != fnv1a(p, index.size() - 4)) {
    warn("the chunk index is damaged (bad checksum); chunks were found by scanning");
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    const unsigned char* e = p + 8 + uint64_t{i} * layout::kIndexEntrySize;
    ChunkInfo chunk;
    chunk.offset = getFixed<uint64_t>(e);
    chunk.kind = static_cast<ChunkKind>(e[8]);
    chunk.payload_size = getFixed<uint32_t>(e + 9);
    chunk.raw_size = getFixed<uint32_t>(e + 13);
    chunk.record_count = getFixed<uint32_t>(e + 17);
    chunk.start_ns = getFixed<int64_t>(e + 21);
    chunk.end_ns = getFixed<int64_t>(e + 29);
    if (chunk.offset + layout::kChunkHeaderSize + chunk.payload_size > index_offset) {
      warn("the chunk index points past its own position; chunks were found by scanning");
      chunks_.clear();
      return false;
    }
    chunks_.push_back(chunk);
  }
  indexed_ = true;
  return true;
}

// Walks chunk headers from the start. A chunk whose header or payload runs past the end of
// the file is the torn tail of an unfinished recording; a damaged header in the middle is
// skipped by searching for the next valid chunk header.
void RecordingReader::scanChunks() {
  uint64_t offset = layout::kFileHeaderSize;
  while (offset < file_size_) {
    ChunkInfo chunk;
    if (parseChunkHeader(offset, chunk) && chunk.payload_size <= file_size_ - offset - layout::kChunkHeaderSize) {
      chunks_.push_back(chunk);
      offset += layout::kChunkHeaderSize + chunk.payload_size;
      continue;
    }
    unsigned char magic[4];
    if (readAt(offset, magic, 4) && getFixed<uint32_t>(magic) == layout::kIndexMagic) return;  // damaged index: done
    uint64_t next = offset + 1;
    while (next + layout::kChunkHeaderSize <= file_size_ && !parseChunkHeader(next, chunk)) ++next;
    if (next + layout::kChunkHeaderSize > file_size_) {
      warn("torn tail: the last " + std::to_string(file_size_ - offset) + " bytes (from " + at(offset) +
           ") are an incomplete chunk and were skipped");
      return;
    }
    warn("damaged bytes " + at(offset) + " to " + std::to_string(next) + " were skipped");
    offset = next;
  }
}

bool RecordingReader::readChunk(const ChunkInfo& chunk, RecordVisitor& visitor) {
  // Header and payload in one read: the header carries the payload's checksum.
  payload_.resize(layout::kChunkHeaderSize + chunk.payload_size);
  if (!readAt(chunk.offset, payload_.data(), payload_.size())) {
    warn("chunk at " + at(chunk.offset) + " could not be read; skipped");
    return false;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(payload_.data());
  const unsigned char* payload = bytes + layout::kChunkHeaderSize;
  if (getFixed<uint32_t>(bytes + 20) != fnv1a(payload, chunk.payload_size)) {
    warn("chunk at " + at(chunk.offset) + " is corrupted (checksum mismatch); skipped");
    return false;
  }
  if (chunk.raw_size > kMaxRawChunk) {
    warn("chunk at " + at(chunk.offset) + " claims an impossible size; skipped");
    return false;
  }
  raw_.resize(chunk.raw_size);
  const size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(zstd_ctx_), raw_.data(), raw_.size(), payload, chunk.payload_size);
  if (ZSTD_isError(n) || n != chunk.raw_size) {
    warn("chunk at " + at(chunk.offset) + " does not decompress; skipped");
    return false;
  }
  decodeRecords(chunk, reinterpret_cast<const unsigned char*>(raw_.data()), raw_.size(), visitor);
  return true;
}

void RecordingReader::readMaps(RecordVisitor& visitor) {
  for (const ChunkInfo& chunk : chunks_)
    if (chunk.kind == ChunkKind::Map) readChunk(chunk, visitor);
}

int64_t RecordingReader::lastEventTime() const {
  int64_t last = 0;
  for (const ChunkInfo& chunk : chunks_)
    if (chunk.kind == ChunkKind::Event) last = std::max(last, chunk.end_ns);
  return last;
}

void RecordingReader::read(RecordVisitor& visitor, int64_t from_ns, int64_t to_ns) {
  readMaps(visitor);
  for (const ChunkInfo& chunk : chunks_)
    if (chunk.kind == ChunkKind::Event && chunk.end_ns >= from_ns && chunk.start_ns <= to_ns) readChunk(chunk, visitor);
}

}  // namespace stackscope::format

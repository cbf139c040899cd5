#include "format/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "format/bytes.h"
#include "format/layout.h"

namespace stackscope::format {

namespace {
constexpr uint32_t kMaxRawChunk = 256u << 20;  // a larger raw size can only be corruption

std::string at(uint64_t offset) { return "offset " + std::to_string(offset); }

// "feature bit 3", "feature bits 3 and 5": the bits of `features`, as docs/format.md numbers
// them (a reader cannot name a feature newer than itself).
std::string featureBitList(uint32_t features) {
  std::vector<std::string> bits;
  for (int bit = 0; bit < 32; ++bit)
    if (features & (1u << bit)) bits.push_back(std::to_string(bit));
  std::string list = bits.size() == 1 ? "feature bit " : "feature bits ";
  for (size_t i = 0; i < bits.size(); ++i) list += (i == 0 ? "" : i + 1 == bits.size() ? " and " : ", ") + bits[i];
  return list;
}
}  // namespace

RecordingReader::RecordingReader(const std::string& path, bool following) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever; the
  // type check below then refuses it. It changes nothing for a regular file.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
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
    if (!readIndex(following)) scanChunks(layout::kFileHeaderSize, following);
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
  const uint32_t unknown_required = header_.features & kRequiredFeatureMask & ~kKnownRequiredFeatures;
  if (unknown_required)
    throw FormatError("'" + path_ + "' was written by a newer stackscope: it needs format " + featureBitList(unknown_required) +
                      " that this reader does not know; read it with the stackscope that recorded it, or a newer one");
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

// Checks the trailer and the index's size; the entries are read when needed (readEntry).
bool RecordingReader::readIndex(bool following) {
  const uint64_t min_size = layout::kFileHeaderSize + layout::kTrailerSize;
  unsigned char trailer[layout::kTrailerSize];
  if (file_size_ < min_size || !readAt(file_size_ - layout::kTrailerSize, trailer, sizeof trailer) ||
      std::memcmp(trailer + 8, layout::kTrailerMagic, sizeof layout::kTrailerMagic) != 0) {
    if (!following)
      warn("the recording has no index (it did not finish: was the JVM killed?); chunks were found by scanning");
    return false;
  }
  const uint64_t index_offset = getFixed<uint64_t>(trailer);
  const uint64_t index_end = file_size_ - layout::kTrailerSize;
  unsigned char head[layout::kIndexHeaderSize];
  if (index_offset < layout::kFileHeaderSize || index_offset + layout::kIndexHeaderSize + 4 > index_end ||
      !readAt(index_offset, head, sizeof head) || getFixed<uint32_t>(head) != layout::kIndexMagic ||
      index_end - index_offset != layout::kIndexHeaderSize + uint64_t{getFixed<uint32_t>(head + 4)} * layout::kIndexEntrySize + 4 ||
      getFixed<uint32_t>(head + 8) > getFixed<uint32_t>(head + 4)) {
    warn("the chunk index is damaged; chunks were found by scanning");
    return false;
  }
  index_offset_ = index_offset;
  index_count_ = getFixed<uint32_t>(head + 4);
  index_maps_ = getFixed<uint32_t>(head + 8);
  indexed_ = true;
  return true;
}

bool RecordingReader::readEntry(uint32_t i, ChunkInfo& chunk) {
  unsigned char e[layout::kIndexEntrySize];
  return readAt(index_offset_ + layout::kIndexHeaderSize + uint64_t{i} * layout::kIndexEntrySize, e, sizeof e) && parseEntry(e, chunk);
}

bool RecordingReader::parseEntry(const unsigned char* e, ChunkInfo& chunk) const {
  if (getFixed<uint32_t>(e + layout::kIndexEntryChecksummed) != fnv1a(e, layout::kIndexEntryChecksummed)) return false;
  chunk.offset = getFixed<uint64_t>(e);
  chunk.kind = static_cast<ChunkKind>(e[8]);
  chunk.payload_size = getFixed<uint32_t>(e + 9);
  chunk.raw_size = getFixed<uint32_t>(e + 13);
  chunk.record_count = getFixed<uint32_t>(e + 17);
  chunk.start_ns = getFixed<int64_t>(e + 21);
  chunk.end_ns = getFixed<int64_t>(e + 29);
  return chunk.offset + layout::kChunkHeaderSize + chunk.payload_size <= index_offset_;
}

// Reads every entry and checks the whole index's checksum; a damaged index falls back to
// scanning the chunk headers.
bool RecordingReader::loadWholeIndex() {
  std::string index(layout::kIndexHeaderSize + uint64_t{index_count_} * layout::kIndexEntrySize + 4, '\0');
  const auto* p = reinterpret_cast<const unsigned char*>(index.data());
  bool ok = readAt(index_offset_, index.data(), index.size()) && getFixed<uint32_t>(p + index.size() - 4) == fnv1a(p, index.size() - 4);
  std::vector<ChunkInfo> chunks(index_count_);
  // From the index just read: a read per entry was a system call per chunk (25 000 for a
  // 20 M-sample recording), all before any chunk could be decoded.
  for (uint32_t i = 0; ok && i < index_count_; ++i) ok = parseEntry(p + layout::kIndexHeaderSize + size_t{i} * layout::kIndexEntrySize, chunks[i]);
  if (!ok) {
    warn("the chunk index is damaged (bad checksum); chunks were found by scanning");
    indexed_ = false;
    chunks_.clear();
    scanChunks(layout::kFileHeaderSize, false);
  } else {
    chunks_ = std::move(chunks);
  }
  index_loaded_ = true;
  return ok;
}

const std::vector<ChunkInfo>& RecordingReader::chunks() {
  if (!index_loaded_) loadWholeIndex();
  return chunks_;
}

std::vector<ChunkInfo> RecordingReader::mapChunks() {
  std::vector<ChunkInfo> out;
  if (!index_loaded_) {
    for (uint32_t i = 0; i < index_maps_; ++i) {
      ChunkInfo chunk;
      if (!readEntry(i, chunk) || chunk.kind != ChunkKind::Map) return loadWholeIndex(), mapChunks();
      out.push_back(chunk);
    }
    return out;
  }
  for (const ChunkInfo& chunk : chunks_)
    if (chunk.kind == ChunkKind::Map) out.push_back(chunk);
  return out;
}

std::vector<ChunkInfo> RecordingReader::eventChunks(int64_t from_ns, int64_t to_ns) {
  std::vector<ChunkInfo> out;
  const auto overlaps = [&](const ChunkInfo& c) { return c.kind == ChunkKind::Event && c.end_ns >= from_ns && c.start_ns <= to_ns; };
  if (index_loaded_ || (from_ns == kBeginning && to_ns == kEnd)) {  // everything: one read of the index
    for (const ChunkInfo& chunk : chunks())
      if (overlaps(chunk)) out.push_back(chunk);
    return out;
  }
  // End times never decrease: find the first event entry ending at or after from_ns, then
  // walk on until the entries start after to_ns (a few more, for starts out of order).
  uint32_t lo = index_maps_, hi = index_count_;
  ChunkInfo chunk;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    if (!readEntry(mid, chunk)) return loadWholeIndex(), eventChunks(from_ns, to_ns);
    if (chunk.end_ns < from_ns) lo = mid + 1;
    else hi = mid;
  }
  // An open-ended window (the default one starts at 0, not at kBeginning) walks the rest of
  // the index, a read per entry and plan() one more per chunk header: 50 000 system calls for
  // 25 000 chunks. Where that reads more bytes than the whole index, read it whole, at once.
  if (to_ns == kEnd &&
      uint64_t{index_count_ - lo} * (layout::kIndexEntrySize + layout::kChunkHeaderSize) > uint64_t{index_count_} * layout::kIndexEntrySize)
    return loadWholeIndex(), eventChunks(from_ns, to_ns);
  constexpr int kOutOfOrderSlack = 8;
  for (int past = 0; lo < index_count_ && past < kOutOfOrderSlack; ++lo) {
    if (!readEntry(lo, chunk)) return loadWholeIndex(), eventChunks(from_ns, to_ns);
    if (overlaps(chunk)) out.push_back(chunk);
    if (chunk.start_ns > to_ns) ++past;
  }
  return out;
}

std::optional<ChunkInfo> RecordingReader::lastEventChunk() {
  if (!index_loaded_ && index_count_ > index_maps_) {
    ChunkInfo chunk;
    if (readEntry(index_count_ - 1, chunk) && chunk.kind == ChunkKind::Event) return chunk;
  }
  const auto& all = chunks();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (it->kind == ChunkKind::Event) return *it;
  return std::nullopt;
}

int64_t RecordingReader::lastEventTime() {
  const auto last = lastEventChunk();
  return last ? std::max<int64_t>(last->end_ns, 0) : 0;
}

// Walks chunk headers from `offset`. A chunk whose header or payload runs past the end of
// the file is the torn tail of an unfinished recording; a damaged header in the middle is
// skipped by searching for the next valid chunk header.
void RecordingReader::scanChunks(uint64_t offset, bool following) {
  index_loaded_ = true;
  while (offset < file_size_) {
    ChunkInfo chunk;
    const bool parsed = parseChunkHeader(offset, chunk);
    if (parsed && chunk.payload_size <= file_size_ - offset - layout::kChunkHeaderSize) {
      chunks_.push_back(chunk);
      offset += layout::kChunkHeaderSize + chunk.payload_size;
      scanned_to_ = offset;
      continue;
    }
    if (following && (parsed || file_size_ - offset < layout::kChunkHeaderSize)) return;  // the writer's next chunk
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
    scanned_to_ = offset;
  }
}

size_t RecordingReader::followAppended() {
  struct stat st {};
  if (indexed_ || ::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) <= file_size_) return 0;
  file_size_ = static_cast<uint64_t>(st.st_size);
  const size_t before = chunks_.size();
  scanChunks(std::max<uint64_t>(scanned_to_, layout::kFileHeaderSize), true);
  return chunks_.size() - before;
}

const char* RecordingReader::chunkBytes(const ChunkInfo& chunk) {
  const auto sizeOf = [](const ChunkInfo& c) { return layout::kChunkHeaderSize + uint64_t{c.payload_size}; };
  if (chunk.offset >= ahead_offset_ && chunk.offset - ahead_offset_ <= ahead_.size() &&
      sizeOf(chunk) <= ahead_.size() - (chunk.offset - ahead_offset_))
    return ahead_.data() + (chunk.offset - ahead_offset_);
  // This chunk, and the upcoming ones right after it in the file, as far as kReadAhead. The
  // chunks come in willRead's order: the search goes on from the last one found.
  const auto next = std::find_if(upcoming_.begin() + static_cast<std::ptrdiff_t>(upcoming_at_), upcoming_.end(),
                                 [&](const ChunkInfo& c) { return c.offset == chunk.offset; });
  uint64_t end = chunk.offset + sizeOf(chunk);
  if (next != upcoming_.end()) {
    upcoming_at_ = static_cast<size_t>(next - upcoming_.begin());
    for (auto it = next + 1; it != upcoming_.end() && it->offset == end && end + sizeOf(*it) - chunk.offset <= kReadAhead; ++it)
      end += sizeOf(*it);
  }
  ahead_offset_ = chunk.offset;
  ahead_.resize(end - chunk.offset);
  if (readAt(chunk.offset, ahead_.data(), ahead_.size())) return ahead_.data();
  if (end - chunk.offset > sizeOf(chunk)) {  // the file may end within the chunks after it: this one alone
    ahead_.resize(sizeOf(chunk));
    if (readAt(chunk.offset, ahead_.data(), ahead_.size())) return ahead_.data();
  }
  ahead_.clear();
  return nullptr;
}

const unsigned char* RecordingReader::loadChunk(const ChunkInfo& chunk) {
  // Header and payload in one read: the header carries the payload's checksum.
  const char* read = chunkBytes(chunk);
  if (!read) {
    warn("chunk at " + at(chunk.offset) + " could not be read; skipped");
    return nullptr;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(read);
  const unsigned char* payload = bytes + layout::kChunkHeaderSize;
  // The header there must be the chunk the index or the scan described.
  if (getFixed<uint32_t>(bytes) != layout::kChunkMagic ||
      getFixed<uint32_t>(bytes + layout::kChunkHeaderChecksummed) != fnv1a(bytes, layout::kChunkHeaderChecksummed) ||
      getFixed<uint32_t>(bytes + 8) != chunk.payload_size || getFixed<uint32_t>(bytes + 12) != chunk.raw_size) {
    warn("chunk at " + at(chunk.offset) + " does not match its index entry; skipped");
    return nullptr;
  }
  const bool lanes = (header_.features & kFeatureLaneChecksums) != 0;
  if (getFixed<uint32_t>(bytes + 20) != (lanes ? laneChecksum(payload, chunk.payload_size) : fnv1a(payload, chunk.payload_size))) {
    warn("chunk at " + at(chunk.offset) + " is corrupted (checksum mismatch); skipped");
    return nullptr;
  }
  if (chunk.raw_size > kMaxRawChunk) {
    warn("chunk at " + at(chunk.offset) + " claims an impossible size; skipped");
    return nullptr;
  }
  raw_.resize(chunk.raw_size);
  const size_t n = ZSTD_decompressDCtx(static_cast<ZSTD_DCtx*>(zstd_ctx_), raw_.data(), raw_.size(), payload, chunk.payload_size);
  if (ZSTD_isError(n) || n != chunk.raw_size) {
    warn("chunk at " + at(chunk.offset) + " does not decompress; skipped");
    return nullptr;
  }
  return reinterpret_cast<const unsigned char*>(raw_.data());
}

void RecordingReader::readMaps(RecordVisitor& visitor) {
  for (const ChunkInfo& chunk : mapChunks()) readChunk(chunk, visitor);
}

std::vector<ChunkInfo> RecordingReader::plan(int64_t from_ns, int64_t to_ns) {
  std::vector<ChunkInfo> plan = mapChunks();
  const std::vector<ChunkInfo> events = eventChunks(from_ns, to_ns);
  plan.insert(plan.end(), events.begin(), events.end());
  // Index entries read one by one were not covered by the index checksum: check them
  // against their chunk headers before decoding anything, and rescan on a mismatch.
  if (!index_loaded_ && !std::all_of(plan.begin(), plan.end(), [&](const ChunkInfo& c) { return matchesHeader(c); })) {
    loadWholeIndex();
    return this->plan(from_ns, to_ns);
  }
  return plan;
}

void RecordingReader::read(RecordVisitor& visitor, int64_t from_ns, int64_t to_ns) {
  for (const ChunkInfo& chunk : plan(from_ns, to_ns)) readChunk(chunk, visitor);
}

std::string RecordingReader::contentFingerprint() {
  // The file header, then every chunk's own header: each carries its payload's checksum, so
  // any change to what a chunk holds (or to which chunks there are) changes the result.
  unsigned char h[layout::kFileHeaderSize];
  uint64_t hash = 1469598103934665603ull;
  const auto mix = [&hash](const void* data, size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  };
  if (readAt(0, h, sizeof h)) mix(h, sizeof h);
  mix(&file_size_, sizeof file_size_);
  const std::vector<ChunkInfo>& all = chunks();
  for (const ChunkInfo& chunk : all) {
    unsigned char header[layout::kChunkHeaderSize] = {};
    readAt(chunk.offset, header, sizeof header);  // an unreadable header hashes as zeros
    mix(&chunk.offset, sizeof chunk.offset);
    mix(header, sizeof header);
  }
  char text[40];
  std::snprintf(text, sizeof text, "%016llx/%zu", static_cast<unsigned long long>(hash), all.size());
  return text;
}

bool RecordingReader::matchesHeader(const ChunkInfo& entry) {
  ChunkInfo header;
  return parseChunkHeader(entry.offset, header) && header.kind == entry.kind && header.payload_size == entry.payload_size &&
         header.raw_size == entry.raw_size && header.record_count == entry.record_count;
}

}  // namespace stackscope::format

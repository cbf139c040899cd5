// Byte-level encoding shared by writer and reader: LEB128 varints, zigzag, little-endian
// fixed-width integers and the checksums (FNV-1a, the lane checksum). Header-only, exception-free.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace stackscope::format {

inline uint64_t zigzag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63); }
inline int64_t unzigzag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

inline void putVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

inline void putSigned(std::string& out, int64_t v) { putVarint(out, zigzag(v)); }

inline void putBytes(std::string& out, std::string_view bytes) {
  putVarint(out, bytes.size());
  out.append(bytes);
}

template <typename T>
inline void putFixed(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
}

template <typename T>
inline T getFixed(const unsigned char* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return static_cast<T>(v);
}

// 32-bit FNV-1a: cheap, no tables, good enough to tell a torn or corrupted chunk. The chunk
// headers' and the index's checksum, and the payloads' in files without kFeatureLaneChecksums.
inline uint32_t fnv1a(const void* data, size_t size, uint32_t hash = 2166136261u) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 16777619u;
  return hash;
}

// The payload checksum of files with kFeatureLaneChecksums (docs/format.md): four 64-bit lanes
// take 8 bytes each per step (xor, multiply by an odd constant, xor-shift: each step a
// bijection of the lane, so one changed byte always changes its lane), folded to 32 bits at the
// end. FNV-1a's one multiply per byte in a single chain cost 5-8 % of a large load; the four
// lanes run side by side, 32 bytes per step.
inline uint32_t laneChecksum(const void* data, size_t size) {
  constexpr uint64_t kOdd = 0x9e6c63d0676a9a99ull;
  const auto* p = static_cast<const unsigned char*>(data);
  // One load per word on little-endian hosts (getFixed's byte loop was not made one: perf).
  const auto word = [](const unsigned char* at) {
    if constexpr (std::endian::native == std::endian::little) {
      uint64_t v;
      std::memcpy(&v, at, sizeof v);
      return v;
    } else {
      return getFixed<uint64_t>(at);
    }
  };
  const auto step = [](uint64_t lane, uint64_t in) {
    lane = (lane ^ in) * kOdd;
    return lane ^ (lane >> 29);
  };
  uint64_t lanes[4] = {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
  size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int l = 0; l < 4; ++l) lanes[l] = step(lanes[l], word(p + i + 8 * l));
  // The last 0-31 bytes, zero-padded to whole words; the size keeps padding apart from zeros.
  unsigned char tail[32] = {};
  if (size > i) std::memcpy(tail, p + i, size - i);
  for (int l = 0; l < 4; ++l) lanes[l] = step(lanes[l], word(tail + 8 * l));
  uint64_t h = size;
  for (uint64_t lane : lanes) h = step(h, lane);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

// A bounds-checked cursor over a record payload. Reading past the end sets failed() and
// yields zeros, so a decoder can read all fields and check once at the end.
class ByteCursor {
 public:
  ByteCursor() = default;  // over nothing: every read fails
  ByteCursor(const unsigned char* data, size_t size) : p_(data), end_(data + size) {}
  explicit ByteCursor(std::string_view bytes)
      : ByteCursor(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()) {}

  // Inlined into the decoders: a record of a few fields is read per event, tens of millions of
  // times in a large recording, and a call per field showed in perf.
  [[gnu::always_inline]] uint64_t varint() {
    // Most fields (ids, states, small deltas) fit one byte: the common case first; then up to
    // four bytes (stack ids, a sample's time delta) unrolled, without the general loop's
    // per-byte bound check and shift count (callgrind: the loop was a fifth of the decoding's
    // instructions).
    if (p_ < end_ && *p_ < 0x80) return *p_++;
    if (end_ - p_ >= 4) {
      uint64_t v = p_[0] & 0x7f;
      const uint64_t b1 = p_[1], b2 = p_[2], b3 = p_[3];
      v |= (b1 & 0x7f) << 7;
      if (b1 < 0x80) {
        p_ += 2;
        return v;
      }
      v |= (b2 & 0x7f) << 14;
      if (b2 < 0x80) {
        p_ += 3;
        return v;
      }
      v |= (b3 & 0x7f) << 21;
      if (b3 < 0x80) {
        p_ += 4;
        return v;
      }
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return fail();
      const unsigned char b = *p_++;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    return fail();
  }
  [[gnu::always_inline]] int64_t signedVarint() { return unzigzag(varint()); }
  [[gnu::always_inline]] uint32_t u32() {
    const uint64_t v = varint();
    if (v > UINT32_MAX) return static_cast<uint32_t>(fail());
    return static_cast<uint32_t>(v);
  }
  std::string_view bytes() {
    const uint64_t n = varint();
    if (n > static_cast<uint64_t>(end_ - p_)) {
      fail();
      return {};
    }
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  bool atEnd() const { return p_ >= end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  bool failed() const { return failed_; }
  const unsigned char* position() const { return p_; }
  void skip(size_t n) {
    if (n > remaining()) {
      fail();
      return;
    }
    p_ += n;
  }

 private:
  uint64_t fail() {
    failed_ = true;
    p_ = end_;
    return 0;
  }
  const unsigned char* p_ = nullptr;
  const unsigned char* end_ = nullptr;
  bool failed_ = false;
};

}  // namespace stackscope::format

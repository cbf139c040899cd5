// Byte-level encoding shared by writer and reader: LEB128 varints, zigzag, little-endian
// fixed-width integers and the FNV-1a checksum. Header-only, exception-free.
#pragma once

#include <cstddef>
#include <cstdint>
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

// 32-bit FNV-1a: cheap, no tables, good enough to tell a torn or corrupted chunk.
inline uint32_t fnv1a(const void* data, size_t size, uint32_t hash = 2166136261u) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 16777619u;
  return hash;
}

// A bounds-checked cursor over a record payload. Reading past the end sets failed() and
// yields zeros, so a decoder can read all fields and check once at the end.
class ByteCursor {
 public:
  ByteCursor(const unsigned char* data, size_t size) : p_(data), end_(data + size) {}

  // Inlined into the decoders: a record of a few fields is read per event, tens of millions of
  // times in a large recording, and a call per field showed in perf.
  [[gnu::always_inline]] uint64_t varint() {
    // Most fields (ids, states, small deltas) fit one byte: the common case first.
    if (p_ < end_ && *p_ < 0x80) return *p_++;
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
  const unsigned char* p_;
  const unsigned char* end_;
  bool failed_ = false;
};

}  // namespace stackscope::format

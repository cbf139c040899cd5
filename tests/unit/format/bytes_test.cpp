// The byte-level encoding (format/bytes.h): varints decoded by every path of ByteCursor::varint
// (one byte, the unrolled two to four bytes, the general loop near a buffer's end and beyond
// four bytes), and the lane checksum's response to any one changed byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "format/bytes.h"

namespace stackscope::format {
namespace {

// Values at and around every 7-bit boundary up to 64 bits.
std::vector<uint64_t> boundaryValues() {
  std::vector<uint64_t> values{0, 1, UINT64_MAX, UINT64_MAX - 1};
  for (int bits = 7; bits < 64; bits += 7)
    for (int64_t d = -2; d <= 2; ++d) values.push_back((uint64_t{1} << bits) + static_cast<uint64_t>(d));
  return values;
}

TEST(Bytes, VarintsDecodeAsEncodedAnywhereInTheBuffer) {
  const std::vector<uint64_t> values = boundaryValues();
  // Each value alone (the buffer ends right after it: the paths that must check the end), then
  // all in one buffer, with a one-byte value after each so the unrolled path sees bytes beyond.
  for (uint64_t v : values) {
    std::string alone;
    putVarint(alone, v);
    ByteCursor in(reinterpret_cast<const unsigned char*>(alone.data()), alone.size());
    EXPECT_EQ(in.varint(), v);
    EXPECT_TRUE(in.atEnd());
    EXPECT_FALSE(in.failed());
  }
  std::string all;
  for (uint64_t v : values) {
    putVarint(all, v);
    putVarint(all, 5);
  }
  ByteCursor in(reinterpret_cast<const unsigned char*>(all.data()), all.size());
  for (uint64_t v : values) {
    EXPECT_EQ(in.varint(), v);
    EXPECT_EQ(in.varint(), 5u);
  }
  EXPECT_TRUE(in.atEnd());
  EXPECT_FALSE(in.failed());
}

TEST(Bytes, AVarintCutShortFails) {
  for (uint64_t v : boundaryValues()) {
    std::string bytes;
    putVarint(bytes, v);
    if (bytes.size() < 2) continue;
    bytes += std::string(8, '\x7f');  // bytes after the buffer's end, which must not be read
    ByteCursor in(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size() - 9);
    in.varint();
    EXPECT_TRUE(in.failed()) << v;
  }
}

TEST(Bytes, TheLaneChecksumChangesWithAnyOneByte) {
  // Sizes around the 32-byte blocks; every byte flipped in each of three ways.
  for (size_t size : {0, 1, 7, 31, 32, 33, 64, 100, 1000}) {
    std::string data(size, '\0');
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<char>(i * 37 + size);
    const uint32_t sum = laneChecksum(data.data(), data.size());
    for (size_t i = 0; i < size; ++i)
      for (unsigned flip : {0x01u, 0x80u, 0xffu}) {
        std::string changed = data;
        changed[i] = static_cast<char>(changed[i] ^ flip);
        EXPECT_NE(laneChecksum(changed.data(), changed.size()), sum) << "size " << size << " byte " << i;
      }
    // A zero byte appended is not the same payload: the size is in the sum.
    EXPECT_NE(laneChecksum((data + '\0').data(), size + 1), sum) << size;
  }
}

}  // namespace
}  // namespace stackscope::format

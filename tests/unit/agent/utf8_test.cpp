#include "agent/utf8.h"

#include <gtest/gtest.h>

#include <vector>

namespace stackscope::agent {
namespace {

std::string convert(const std::u16string& text, size_t max_bytes = 4096, size_t* used = nullptr) {
  std::string out;
  const size_t n = appendUtf8FromUtf16(reinterpret_cast<const uint16_t*>(text.data()), text.size(), max_bytes, out);
  if (used) *used = n;
  return out;
}

TEST(Utf8FromUtf16, AsciiAndEachEncodedLength) {
  EXPECT_EQ(convert(u""), "");
  EXPECT_EQ(convert(u"user-1"), "user-1");
  EXPECT_EQ(convert(u"é"), "\xC3\xA9");
  EXPECT_EQ(convert(u"用户"), "\xE7\x94\xA8\xE6\x88\xB7");
  EXPECT_EQ(convert(u"😀"), "\xF0\x9F\x98\x80") << "a surrogate pair is one 4-byte character, not modified UTF-8";
  EXPECT_EQ(convert(u"\U0010FFFF"), "\xF4\x8F\xBF\xBF");
}

TEST(Utf8FromUtf16, NulIsOneZeroByteNotC080) {
  const std::u16string text(u"a\0b", 3);
  EXPECT_EQ(convert(text), std::string("a\0b", 3));
}

TEST(Utf8FromUtf16, UnpairedSurrogatesBecomeReplacementCharacters) {
  const std::u16string lone_high{u'a', char16_t(0xD83D), u'b'};
  EXPECT_EQ(convert(lone_high), "a\xEF\xBF\xBD" "b");
  const std::u16string lone_low{char16_t(0xDE00)};
  EXPECT_EQ(convert(lone_low), "\xEF\xBF\xBD");
  const std::u16string high_at_end{u'x', char16_t(0xD83D)};
  EXPECT_EQ(convert(high_at_end), "x\xEF\xBF\xBD");
}

TEST(Utf8FromUtf16, CutsAtTheLastWholeCharacterThatFits) {
  size_t used = 0;
  EXPECT_EQ(convert(u"abcdef", 4, &used), "abcd");
  EXPECT_EQ(used, 4u);
  // "a" + emoji = 5 bytes; with 4 allowed the emoji does not fit whole.
  EXPECT_EQ(convert(u"a😀", 4, &used), "a");
  EXPECT_EQ(used, 1u);
  EXPECT_EQ(convert(u"a😀", 5, &used), "a\xF0\x9F\x98\x80");
  EXPECT_EQ(used, 3u);
  EXPECT_EQ(convert(u"用用", 5), "\xE7\x94\xA8");
}

TEST(Utf8FromUtf16, AppendsToWhatIsThere) {
  std::string out = "x";
  const std::u16string text = u"y";
  appendUtf8FromUtf16(reinterpret_cast<const uint16_t*>(text.data()), 1, 10, out);
  EXPECT_EQ(out, "xy");
}

}  // namespace
}  // namespace stackscope::agent

// A Method record's line table (docs/format.md, feature bit 4): written as deltas, read back as
// written whatever its order and values; a file without the bit keeps absolute values; a delta
// that leaves the range of a bci or a line makes the record malformed, not a wrong line.
#include <gtest/gtest.h>

#include "recording_fixture.h"

namespace stackscope::format {
namespace {

using testing::Collector;
using testing::putRecord;
using testing::readHandmade;
using testing::tempPath;

using Lines = std::vector<std::pair<uint32_t, uint32_t>>;

Lines pairs(const std::vector<LineEntry>& lines) {
  Lines out;
  for (const LineEntry& e : lines) out.emplace_back(e.bci, e.line);
  return out;
}

// A Method record with the given line table as its bytes say it (no native fields): deltas are
// signed varints, absolute values plain ones.
std::string methodBody(const std::vector<std::pair<int64_t, int64_t>>& entries, bool deltas) {
  std::string body;
  for (uint64_t field : {1, 2, 3, 4, 0}) putVarint(body, field);  // id, class, name, signature, source
  putVarint(body, entries.size());
  for (const auto& [bci, line] : entries) {
    for (const int64_t value : {bci, line}) {
      if (deltas) putSigned(body, value);
      else putVarint(body, static_cast<uint64_t>(value));
    }
  }
  return body;
}

TEST(LineTables, ComeBackAsWrittenAndTheFileSaysTheyAreDeltas) {
  const std::string path = tempPath("lines.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  // Lines that go back (a loop's condition after its body), a bci table out of order, the
  // largest values a u32 holds, and an empty table.
  const std::vector<LineEntry> lines{{0, 120}, {4, 118}, {9, 4000000000u}, {70000, 3}, {5, 7}, {UINT32_MAX, UINT32_MAX}};
  w.writeMethod({1, w.internString("pkg.Main"), w.internString("run"), w.internString("()V"), 0, lines});
  w.writeMethod({2, w.internString("pkg.Main"), w.internString("none"), w.internString("()V"), 0, {}});
  ASSERT_TRUE(w.finish(1));
  RecordingReader reader(path);
  EXPECT_NE(reader.header().features & kFeatureLineDeltas, 0u);
  EXPECT_NE(kFeatureLineDeltas & kRequiredFeatureMask, 0u) << "a reader that took deltas for lines must refuse the file";
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.methods.size(), 2u);
  EXPECT_EQ(pairs(c.methods[0].lines), pairs(lines));
  EXPECT_TRUE(c.methods[1].lines.empty());
  std::remove(path.c_str());
}

TEST(LineTables, AFileWithoutTheBitHasAbsoluteValues) {
  const std::string path = tempPath("lines-absolute.ssr");
  std::string raw;
  putRecord(raw, static_cast<uint32_t>(RecordType::Method), methodBody({{0, 10}, {5, 11}, {9, 8}}, false));
  testing::writeHandmadeFile(path, raw, kOldestReaderVersion, kFeatureZstdChunks, std::nullopt, 1);
  std::vector<std::string> warnings;
  const Collector c = readHandmade(path, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(c.methods.size(), 1u);
  EXPECT_EQ(pairs(c.methods[0].lines), (Lines{{0, 10}, {5, 11}, {9, 8}}));
  std::remove(path.c_str());
}

TEST(LineTables, ADeltaOutOfRangeMakesTheRecordMalformed) {
  const std::string path = tempPath("lines-damaged.ssr");
  std::string raw;
  putRecord(raw, static_cast<uint32_t>(RecordType::Method), methodBody({{4, 10}, {-5, 1}}, true));  // bci -1
  putRecord(raw, static_cast<uint32_t>(RecordType::Method), methodBody({{0, 4294967295}, {1, 1}}, true));  // line 2^32
  putRecord(raw, static_cast<uint32_t>(RecordType::Method), methodBody({{4, 10}, {3, -2}}, true));
  testing::writeHandmadeFile(path, raw, kOldestReaderVersion, kFeatureZstdChunks | kFeatureLineDeltas, std::nullopt, 3);
  std::vector<std::string> warnings;
  const Collector c = readHandmade(path, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("2 malformed record(s)"), std::string::npos) << warnings[0];
  ASSERT_EQ(c.methods.size(), 1u);
  EXPECT_EQ(pairs(c.methods[0].lines), (Lines{{4, 10}, {7, 8}}));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stackscope::format

// Damaged input: truncation at every byte, flipped bytes, unknown records, files that are
// not recordings or too new. The reader must never crash and never lose data silently.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <zstd.h>

#include "format/bytes.h"
#include "format/layout.h"
#include "recording_fixture.h"

namespace stackscope::format {
namespace {

using testing::Collector;
using testing::putRecord;
using testing::tempPath;
using testing::writeHandmadeFile;

struct Outcome {
  bool opened = false;
  size_t samples = 0;
  size_t warnings = 0;
};

Outcome readAll(const std::string& path) {
  Outcome o;
  try {
    RecordingReader reader(path);
    Collector c;
    reader.read(c);
    o.opened = true;
    o.samples = c.samples.size();
    o.warnings = reader.warnings().size();
  } catch (const FormatError&) {
  }
  return o;
}

TEST(FormatDamage, TruncatedAtEveryByteKeepsEveryCompleteChunk) {
  const std::string full_path = tempPath("full.ssr");
  testing::writeSmallRecording(full_path);
  const std::string bytes = testing::readFile(full_path);

  // Samples per event chunk, and where each chunk ends, from the intact file.
  std::vector<std::pair<uint64_t, size_t>> chunk_ends;
  {
    RecordingReader reader(full_path);
    for (const ChunkInfo& chunk : reader.chunks()) {
      Collector c;
      ASSERT_TRUE(reader.readChunk(chunk, c));
      chunk_ends.emplace_back(chunk.offset + layout::kChunkHeaderSize + chunk.payload_size, c.samples.size());
    }
  }
  const std::string cut_path = tempPath("cut.ssr");
  for (size_t length = 0; length < bytes.size(); ++length) {
    testing::writeFile(cut_path, bytes.substr(0, length));
    const Outcome o = readAll(cut_path);
    if (length < layout::kFileHeaderSize) {
      EXPECT_FALSE(o.opened) << "length " << length;
      continue;
    }
    ASSERT_TRUE(o.opened) << "length " << length;
    size_t expected = 0;
    for (auto [end, samples] : chunk_ends)
      if (end <= length) expected += samples;
    EXPECT_EQ(o.samples, expected) << "length " << length;
    EXPECT_GT(o.warnings, 0u) << "length " << length;
  }
  std::remove(full_path.c_str());
  std::remove(cut_path.c_str());
}

TEST(FormatDamage, FlippedBytesNeverCrashAndLossIsReported) {
  const std::string path = tempPath("flip-src.ssr");
  testing::writeSmallRecording(path);
  const std::string bytes = testing::readFile(path);
  const std::string flipped_path = tempPath("flip.ssr");
  for (size_t i = layout::kFileHeaderSize; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    testing::writeFile(flipped_path, damaged);
    const Outcome o = readAll(flipped_path);
    ASSERT_TRUE(o.opened) << "byte " << i;
    EXPECT_LE(o.samples, 30u) << "byte " << i;
    if (o.samples < 30) {
      EXPECT_GT(o.warnings, 0u) << "silent loss after flipping byte " << i;
    }
  }
  std::remove(path.c_str());
  std::remove(flipped_path.c_str());
}

TEST(FormatDamage, UnknownRecordTypesAndExtraFieldsAreSkipped) {
  std::string raw;
  putRecord(raw, 999, "future data");
  std::string sample;
  putSigned(sample, 50);      // time
  putVarint(sample, 1);       // thread
  putVarint(sample, 2);       // stack
  putVarint(sample, 1);       // state
  putVarint(sample, 3);       // weight
  putVarint(sample, 12345);   // a field a newer writer added
  putRecord(raw, static_cast<uint32_t>(RecordType::Sample), sample);
  putRecord(raw, 77, "");
  const std::string path = tempPath("unknown.ssr");
  writeHandmadeFile(path, raw);
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  EXPECT_EQ(c.unknowns, (std::vector<uint32_t>{999, 77}));
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].time_ns, 50);
  EXPECT_EQ(c.samples[0].stack, 2u);
  EXPECT_EQ(c.samples[0].weight, 3u);
  EXPECT_EQ(reader.header().version, 9);  // a newer writer that old readers may still read
  std::remove(path.c_str());
}

// Version 1 files' payloads are checked by FNV-1a, version 2 files' (feature bit 2) by the
// lane checksum: each file is read with its own, and a payload summed the other way is refused.
TEST(FormatDamage, ThePayloadChecksumIsTheOneTheFeatureBitsName) {
  std::string sample;
  for (uint32_t field : {2u, 1u, 2u, 1u}) putVarint(sample, field);  // time, thread, stack, state
  std::string raw;
  putRecord(raw, static_cast<uint32_t>(RecordType::Sample), sample);
  std::string payload(ZSTD_compressBound(raw.size()), '\0');
  payload.resize(ZSTD_compress(payload.data(), payload.size(), raw.data(), raw.size(), 1));
  const uint32_t fnv = fnv1a(payload.data(), payload.size());
  const uint32_t lanes = laneChecksum(payload.data(), payload.size());
  ASSERT_NE(fnv, lanes);
  const uint32_t lane_features = kFeatureZstdChunks | kFeatureLaneChecksums;
  const struct {
    uint32_t features, sum;
    bool read;
  } cases[] = {{kFeatureZstdChunks, fnv, true}, {kFeatureZstdChunks, lanes, false}, {lane_features, lanes, true}, {lane_features, fnv, false}};
  for (const auto& c : cases) {
    const std::string path = tempPath("sums.ssr");
    writeHandmadeFile(path, raw, kOldestReaderVersion, c.features, c.sum);
    RecordingReader reader(path);
    Collector collected;
    reader.read(collected);
    EXPECT_EQ(collected.samples.size(), c.read ? 1u : 0u) << "features " << c.features << " sum " << c.sum;
    const bool mismatch = std::any_of(reader.warnings().begin(), reader.warnings().end(),
                                      [](const std::string& w) { return w.find("checksum mismatch") != std::string::npos; });
    EXPECT_EQ(mismatch, !c.read);
    std::remove(path.c_str());
  }
}

// A StackBranch body: id, base, shared, then the frames (outermost first).
std::string branch(uint32_t id, uint32_t base, uint32_t shared, const std::vector<Frame>& frames) {
  std::string body;
  putVarint(body, id);
  putVarint(body, base);
  putVarint(body, shared);
  putVarint(body, frames.size());
  for (const Frame& f : frames) {
    putVarint(body, f.method);
    putSigned(body, f.bci);
  }
  return body;
}

TEST(FormatDamage, StackBranchesThatCannotBeResolvedAreSkippedWithAWarning) {
  constexpr auto kBranch = static_cast<uint32_t>(RecordType::StackBranch);
  std::string raw;
  putRecord(raw, kBranch, branch(1, 0, 0, {{1, 0}, {2, 3}}));
  putRecord(raw, kBranch, branch(2, 9, 1, {{3, 0}}));             // unknown base
  putRecord(raw, kBranch, branch(3, 1, 3, {{3, 0}}));             // shares more than its base has
  putRecord(raw, kBranch, branch(0, 1, 1, {{3, 0}}));             // id 0 means none
  putRecord(raw, kBranch, branch(4, 1, 2, std::vector<Frame>(StackTree::kMaxDepth - 1, Frame{5, 1})));  // too deep
  putRecord(raw, kBranch, branch(5, 1, 1, {{4, 2}}));             // fine: main, then 4
  putRecord(raw, kBranch, branch(1, 0, 0, {{7, 7}}));             // id 1 again: the first one stays
  const std::string path = tempPath("branches.ssr");
  writeHandmadeFile(path, raw);
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.stacks.size(), 3u);
  EXPECT_EQ(c.stacks[0].frames, (std::vector<Frame>{{2, 3}, {1, 0}}));
  EXPECT_EQ(c.stacks[1].id, 5u);
  EXPECT_EQ(c.stacks[1].frames, (std::vector<Frame>{{4, 2}, {1, 0}}));
  EXPECT_EQ(c.stacks[2].frames, c.stacks[0].frames);
  ASSERT_FALSE(reader.warnings().empty());
  EXPECT_NE(reader.warnings().back().find("4 malformed record(s)"), std::string::npos) << reader.warnings().back();
  std::remove(path.c_str());
}

TEST(FormatDamage, MalformedRecordIsSkippedWithAWarning) {
  std::string raw;
  putRecord(raw, static_cast<uint32_t>(RecordType::Sample), std::string("\x80", 1));  // truncated varint
  std::string ok;
  putSigned(ok, 1);
  putVarint(ok, 1);
  putVarint(ok, 1);
  putVarint(ok, 1);
  putRecord(raw, static_cast<uint32_t>(RecordType::Sample), ok);
  const std::string path = tempPath("malformed.ssr");
  writeHandmadeFile(path, raw);
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  EXPECT_EQ(c.samples.size(), 1u);
  ASSERT_FALSE(reader.warnings().empty());
  EXPECT_NE(reader.warnings().back().find("malformed"), std::string::npos);
  std::remove(path.c_str());
}

TEST(FormatDamage, FileNeedingANewerReaderIsRefusedClearly) {
  const std::string path = tempPath("newer.ssr");
  writeHandmadeFile(path, "", kFormatVersion + 1);
  try {
    RecordingReader reader(path);
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("needs a reader of version"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(FormatDamage, FileWithAnUnknownRequiredFeatureIsRefusedNamingItsBits) {
  const std::string path = tempPath("feature.ssr");
  writeHandmadeFile(path, "", kOldestReaderVersion, kFeatureZstdChunks | (1u << 9) | (1u << 12));
  try {
    RecordingReader reader(path);
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("needs format feature bits 9 and 12"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("newer stackscope"), std::string::npos) << e.what();
  }
  // An unknown bit that is not a required one is no reason to refuse.
  writeHandmadeFile(path, "", kOldestReaderVersion, kFeatureZstdChunks | (1u << 20));
  EXPECT_NO_THROW(RecordingReader{path});
  std::remove(path.c_str());
}

TEST(FormatDamage, NotARecordingMissingAndEmptyFilesAreRefused) {
  const std::string path = tempPath("text.ssr");
  testing::writeFile(path, "hello, this is not a recording at all");
  EXPECT_THROW(RecordingReader{path}, FormatError);
  testing::writeFile(path, "");
  EXPECT_THROW(RecordingReader{path}, FormatError);
  std::remove(path.c_str());
  EXPECT_THROW(RecordingReader{path}, FormatError);
  EXPECT_THROW(RecordingReader{"/"}, FormatError);
}

}  // namespace
}  // namespace stackscope::format

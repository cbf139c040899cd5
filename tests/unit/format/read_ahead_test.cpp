// RecordingReader::willRead: chunks that follow each other in the file are read together, and
// what the reader hands out, warns and counts as read is what one read per chunk gives. And a
// window open to the end plans from the index read whole, not entry by entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "recording_fixture.h"

namespace stackscope::format {
namespace {

using testing::Collector;
using testing::tempPath;

std::vector<ChunkInfo> eventChunksOf(RecordingReader& reader) {
  std::vector<ChunkInfo> events;
  for (const ChunkInfo& chunk : reader.plan())
    if (chunk.kind == ChunkKind::Event) events.push_back(chunk);
  return events;
}

TEST(ReadAhead, ChunksReadTogetherGiveWhatOneReadEachGives) {
  const std::string path = tempPath("read_ahead.ssr");
  testing::writeSmallRecording(path, 200);  // 200 event chunks of 10 samples, one after the other
  RecordingReader one_by_one(path);
  RecordingReader ahead(path);
  const std::vector<ChunkInfo> chunks = eventChunksOf(one_by_one);
  ASSERT_EQ(eventChunksOf(ahead).size(), chunks.size());
  ahead.willRead(chunks);
  Collector expected, got;
  for (const ChunkInfo& chunk : chunks) {
    ASSERT_TRUE(one_by_one.readChunk(chunk, expected));
    ASSERT_TRUE(ahead.readChunk(chunk, got));
  }
  ASSERT_EQ(got.samples.size(), 2000u);
  ASSERT_EQ(got.samples.size(), expected.samples.size());
  for (size_t i = 0; i < got.samples.size(); ++i) {
    EXPECT_EQ(got.samples[i].time_ns, expected.samples[i].time_ns) << i;
    EXPECT_EQ(got.samples[i].stack, expected.samples[i].stack) << i;
  }
  EXPECT_TRUE(ahead.warnings().empty());
  // Only the chunks' own bytes: the reads covered nothing else.
  EXPECT_EQ(ahead.bytesRead(), one_by_one.bytesRead());
  std::remove(path.c_str());
}

TEST(ReadAhead, AnUpcomingChunkPastTheFileEndLeavesTheOneBeforeItReadable) {
  const std::string path = tempPath("read_ahead_short.ssr");
  testing::writeSmallRecording(path, 3);
  RecordingReader reader(path);
  const std::vector<ChunkInfo> chunks = eventChunksOf(reader);
  ASSERT_FALSE(chunks.empty());
  // A chunk the plan says follows the first one in the file but which runs past its end (an
  // index that lies): the read of both fails, the first alone is still read.
  ChunkInfo beyond = chunks.front();
  beyond.offset = chunks.front().offset + 44 + chunks.front().payload_size;
  beyond.payload_size = static_cast<uint32_t>(reader.fileSize());
  ASSERT_LT(44 + chunks.front().payload_size + beyond.payload_size + 44, RecordingReader::kReadAhead);
  reader.willRead(std::vector<ChunkInfo>{chunks.front(), beyond});
  Collector c;
  EXPECT_TRUE(reader.readChunk(chunks.front(), c));
  EXPECT_EQ(c.samples.size(), 10u);
  EXPECT_FALSE(reader.readChunk(beyond, c));
  ASSERT_EQ(reader.warnings().size(), 1u);
  EXPECT_NE(reader.warnings()[0].find("could not be read"), std::string::npos) << reader.warnings()[0];
  std::remove(path.c_str());
}

TEST(ReadAhead, AWindowOpenToTheEndReadsTheIndexOnce) {
  const std::string path = tempPath("read_ahead_open.ssr");
  testing::writeSmallRecording(path, 2000);  // 2000 event chunks of 100 ms each, and the end's
  RecordingReader reader(path);
  const std::vector<ChunkInfo> plan = reader.plan(0, RecordingReader::kEnd);  // a report's default window
  EXPECT_EQ(std::count_if(plan.begin(), plan.end(), [](const ChunkInfo& c) { return c.kind == ChunkKind::Event; }), 2001);
  EXPECT_TRUE(reader.warnings().empty());
  // The index (2001 event entries, 41 bytes each) once, and the binary search's few entries:
  // walking it read each entry and each chunk's 44-byte header apart, 2001 * 85 bytes.
  const uint64_t index = 2002u * 41;
  EXPECT_LT(reader.bytesRead(), index + 16 * 41 + 100) << reader.bytesRead();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stackscope::format

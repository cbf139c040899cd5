// The event model as loaded from a file: tables, threads, lost counts, time windows, and
// files that are torn, damaged or not recordings at all.
#include <gtest/gtest.h>

#include "analysis/load.h"
#include "analysis/names.h"
#include "fixture.h"
#include "format/reader.h"

namespace stackscope::analysis {
namespace {

using testing::kMs;

uint64_t sampleCount(const Recording& r) {
  uint64_t n = 0;
  for (const Sample& s : r.samples) n += s.weight;
  return n;
}

class LoadTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::writeReferenceRecording(path_); }
  testing::TempDir dir_;
  std::string path_ = dir_.file("ref.ssr");
};

TEST_F(LoadTest, LoadsMapDataAndEvents) {
  const Recording r = loadRecording(path_);
  ASSERT_TRUE(r.has_info);
  EXPECT_EQ(r.info.mode, "wall");
  EXPECT_EQ(r.info.interval_ns, 10 * kMs);
  EXPECT_TRUE(r.ended);
  EXPECT_EQ(r.end_ns, 70 * kMs);
  EXPECT_EQ(r.viewDurationNs(), 70 * kMs);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(sampleCount(r), 14u);
  EXPECT_EQ(r.samples.size(), 13u);  // one record of weight 2
  EXPECT_EQ(r.statuses.size(), 2u);
  EXPECT_EQ(methodName(r, 4), "app.Util$Inner.leaf");
  EXPECT_EQ(methodSignature(r, 4), "(I)I");
  EXPECT_EQ(methodName(r, 99), "<unknown method #99>");
}

TEST_F(LoadTest, LastThreadRecordWinsAndThreadEventsGiveTimes) {
  const Recording r = loadRecording(path_);
  EXPECT_EQ(threadName(r, 2), "worker-1");
  EXPECT_EQ(r.threads[2].os_tid, 1002);
  EXPECT_EQ(r.threads[2].start_ns, 1 * kMs);
  EXPECT_EQ(r.threads[2].end_ns, 20 * kMs);
  EXPECT_EQ(r.threads[1].end_ns, ThreadInfo::kUnknownTime);
}

TEST_F(LoadTest, LostCountsAreSummedByReason) {
  const Recording r = loadRecording(path_);
  EXPECT_EQ(r.lost.at(format::LostReason::NotWalkable), 3u);
  EXPECT_EQ(r.lost.at(format::LostReason::BufferFull), 1u);
  EXPECT_EQ(r.lostTotal(), 4u);
}

TEST_F(LoadTest, WindowKeepsEventsInsideItHalfOpen) {
  const Recording r = loadRecording(path_, {20 * kMs, 50 * kMs});
  ASSERT_EQ(sampleCount(r), 5u);  // main 20, 30, 40; sleeper 20, 30 (50 is outside)
  for (const Sample& s : r.samples) {
    EXPECT_GE(s.time_ns, 20 * kMs);
    EXPECT_LT(s.time_ns, 50 * kMs);
  }
  EXPECT_EQ(r.lostTotal(), 3u);  // 25: 2, 45: 1
  EXPECT_EQ(r.statuses.size(), 1u);
  EXPECT_EQ(r.viewDurationNs(), 30 * kMs);
}

TEST_F(LoadTest, WindowBeforeTheLastChunkStillKnowsTheRecordingEnded) {
  const Recording r = loadRecording(path_, {0, 10 * kMs});
  EXPECT_TRUE(r.ended);
  EXPECT_EQ(r.end_ns, 70 * kMs);
  EXPECT_EQ(sampleCount(r), 3u);  // main 0, sleeper 0, worker 5
}

TEST_F(LoadTest, WindowPastTheEndIsEmpty) {
  const Recording r = loadRecording(path_, {100 * kMs, TimeWindow::kOpen});
  EXPECT_TRUE(r.samples.empty());
  EXPECT_EQ(r.viewDurationNs(), 0);
}

TEST_F(LoadTest, TornFileLoadsCompleteChunksWithAWarning) {
  uint64_t last_chunk = 0;
  {
    format::RecordingReader reader(path_);
    last_chunk = reader.chunks().back().offset;
  }
  testing::truncateFile(path_, last_chunk + 10);
  const Recording r = loadRecording(path_);
  EXPECT_FALSE(r.ended);
  EXPECT_FALSE(r.warnings.empty());
  EXPECT_EQ(sampleCount(r), 11u);  // the first event chunk: events up to 30ms
  EXPECT_EQ(r.end_ns, 30 * kMs);   // the last readable event
}

TEST_F(LoadTest, UnfinishedFileWithoutIndexLoadsEverything) {
  testing::writeReferenceRecording(path_, /*finish=*/false);
  const Recording r = loadRecording(path_);
  EXPECT_FALSE(r.ended);
  EXPECT_EQ(sampleCount(r), 14u);
  EXPECT_EQ(r.end_ns, 65 * kMs);
}

TEST_F(LoadTest, MissingOrForeignFileThrowsFormatError) {
  EXPECT_THROW(loadRecording(dir_.file("absent.ssr")), format::FormatError);
  testing::truncateFile(path_, 0);
  EXPECT_THROW(loadRecording(path_), format::FormatError);
}

}  // namespace
}  // namespace stackscope::analysis

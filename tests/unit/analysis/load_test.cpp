// The event model as loaded from a file: tables, threads, lost counts, time windows, and
// files that are torn, damaged or not recordings at all.
#include <gtest/gtest.h>

#include "analysis/call_tree.h"
#include "analysis/load.h"
#include "analysis/method_stats.h"
#include "analysis/names.h"
#include "analysis/thread_stats.h"
#include "fixture.h"
#include "format/reader.h"

namespace stackscope::analysis {
namespace {

using testing::kMs;

uint64_t sampleCount(const Recording& r) {
  uint64_t n = 0;
  for (const Event& s : r.events) n += s.weight;
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
  EXPECT_EQ(r.events.size(), 13u);  // one record of weight 2
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
  for (const Event& s : r.events) {
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
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(r.viewDurationNs(), 0);
}

TEST_F(LoadTest, TornFileLoadsCompleteChunksWithAWarning) {
  testing::truncateFile(path_, testing::lastChunkOffset(path_) + 10);
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

TEST_F(LoadTest, CorruptedEventChunkIsSkippedWithAWarning) {
  testing::corruptChunk(path_, -1);
  const Recording r = loadRecording(path_);
  EXPECT_EQ(sampleCount(r), 11u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("corrupted"), std::string::npos) << r.warnings[0];
  EXPECT_FALSE(r.ended);  // the end record was in the skipped chunk
}

TEST_F(LoadTest, SamplesWhoseStacksWereLostStayInTheTotals) {
  testing::corruptChunk(path_, 0);  // the map chunk: methods, threads and stacks are gone
  const Recording r = loadRecording(path_);
  EXPECT_EQ(sampleCount(r), 14u);
  for (const Event& s : r.events) EXPECT_EQ(s.stack, 0u);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_NE(r.warnings[1].find("13 samples refer to stack traces missing"), std::string::npos) << r.warnings[1];
  EXPECT_EQ(threadName(r, 1), "<thread #1>");
}

// Every prefix and every single-byte flip of the file either loads (what is readable, with
// warnings) or is refused with a FormatError; the statistics run on whatever loaded.
TEST_F(LoadTest, EveryTruncationAndEveryFlippedByteIsHandled) {
  const std::string original = testing::readFile(path_);
  const std::string damaged_path = dir_.file("damaged.ssr");
  const auto check = [&](const std::string& content, const std::string& what) {
    testing::writeFile(damaged_path, content);
    try {
      const Recording r = loadRecording(damaged_path);
      EXPECT_LE(sampleCount(r), 14u) << what;
      EXPECT_LE(computeMethodStats(r, ownEvents(r)).totals.samples, 14u) << what;
      EXPECT_EQ(buildCallTree(r, ownEvents(r)).totals.value, computeThreadStats(r, ownEvents(r)).totals.value) << what;
    } catch (const format::FormatError&) {
    }
  };
  for (size_t size = 0; size < original.size(); ++size) check(original.substr(0, size), "size " + std::to_string(size));
  for (size_t at = 0; at < original.size(); ++at) {
    std::string flipped = original;
    flipped[at] = static_cast<char>(flipped[at] ^ 0xff);
    check(flipped, "byte " + std::to_string(at));
  }
}

TEST_F(LoadTest, MissingOrForeignFileThrowsFormatError) {
  EXPECT_THROW(loadRecording(dir_.file("absent.ssr")), format::FormatError);
  testing::truncateFile(path_, 0);
  EXPECT_THROW(loadRecording(path_), format::FormatError);
}

// The launcher's thread detaches as main once main() returned and attaches again as
// DestroyJavaVM under the same id (agent/thread_tracker.h): it started with the JVM, not then.
TEST(LoadThreads, AThreadStartedAgainKeepsItsFirstStartAndItsLastEnd) {
  testing::TempDir dir;
  const std::string path = dir.file("main.ssr");
  {
    format::RecordingWriter w;
    ASSERT_TRUE(w.open(path));
    testing::writeTestInfo(w, "cpu", 1000 * kMs, 4242);
    w.writeThread({1, "main", 1001, 1});
    w.writeThreadStart({2 * kMs, 1});
    w.writeThreadEnd({50 * kMs, 1});
    w.writeThread({1, "DestroyJavaVM", 1001, 1});
    w.writeThreadStart({51 * kMs, 1});
    w.writeThreadEnd({60 * kMs, 1});
    ASSERT_TRUE(w.finish(60 * kMs));
  }
  const Recording r = loadRecording(path);
  EXPECT_EQ(r.threads[1].name, "main");
  EXPECT_EQ(r.threads[1].start_ns, 2 * kMs);
  EXPECT_EQ(r.threads[1].end_ns, 60 * kMs);
}

// A native frame is written without a name (docs/format.md, Method); one whose module is not on
// this machine, or a kernel address of another boot, is named by its module and address. A
// name an older writer gave is kept.
TEST(LoadNativeFrames, AFrameWrittenWithoutANameIsNamedByItsModuleAndAddress) {
  testing::TempDir dir;
  const std::string path = dir.file("natives.ssr");
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  testing::writeTestInfo(w, "cpu", 10 * kMs, 4242);
  w.writeThread({1, "main", 1001, 1});
  const auto native = [&](uint32_t id, uint32_t name, const std::string& module, uint64_t address) {
    format::MethodRecord method{id, w.internString(""), name, w.internString(""), 0, {}};
    method.native_module = w.internString(module);
    method.native_address = address;
    w.writeMethod(method);
  };
  native(1, 0, "/nonexistent/libgone.so", 0x5a3c10);
  native(2, 0, "[kernel]", 0xffffffff81000123);
  native(3, w.internString("libold.so+0x10"), "/nonexistent/libold.so", 0x10);
  const format::Frame frames[] = {{1, 0}, {2, 0}, {3, 0}};
  w.writeSample({kMs, 1, w.internStack(frames, 3)});
  ASSERT_TRUE(w.finish(2 * kMs));
  const Recording r = loadRecording(path);
  EXPECT_EQ(methodName(r, 1), "libgone.so+0x5a3c10");
  EXPECT_EQ(methodName(r, 2), "[kernel]+0xffffffff81000123");
  EXPECT_EQ(methodName(r, 3), "libold.so+0x10");
  EXPECT_EQ(r.string(r.methods[1].source_file), "libgone.so");
}

}  // namespace
}  // namespace stackscope::analysis

// A rotated recording read as one (analysis/recording_set.h): parts written by hand with the
// writer's own rotation (RecordingWriter::continueIn), each with ids that restart.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "analysis/load.h"
#include "analysis/names.h"
#include "analysis/recording_set.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::analysis {
namespace {

using testing::kMs;

void method(format::RecordingWriter& w, uint32_t id, const char* cls, const char* name) {
  w.writeMethod({id, w.internString(cls), w.internString(name), w.internString("()V"), 0, {}});
}

uint32_t stack(format::RecordingWriter& w, std::vector<uint32_t> innermost_first) {
  std::vector<format::Frame> frames;
  for (uint32_t m : innermost_first) frames.push_back({m, 3});
  return w.internStack(frames.data(), frames.size());
}

void sample(format::RecordingWriter& w, int64_t ms, uint32_t thread, uint32_t stack) {
  w.writeSample({ms * kMs, thread, stack, format::ThreadState::Running, 1, 0});
}

// run.ssr: a, b; threads main (1) and w (2, started at 1 ms); samples 0 [a], 10 [b a], 20 [a] (w).
// run-1.ssr, from 25 ms: b, a, c (other ids); w renamed w2; samples 19 [b a] (a late one), 30 [b a],
// 40 [c] (w2). run-2.ssr: another JVM's recording, which does not belong.
class RecordingSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    format::RecordingWriter w;
    ASSERT_TRUE(w.open(first_));
    testing::writeTestInfo(w, "cpu", 1000 * kMs, 7);
    method(w, 1, "app.A", "a");
    method(w, 2, "app.B", "b");
    w.writeThread({1, "main", 101, 1});
    w.writeThread({2, "w", 102, 2});
    w.writeThreadStart({1 * kMs, 2});
    sample(w, 0, 1, stack(w, {1}));
    sample(w, 10, 1, stack(w, {2, 1}));
    sample(w, 20, 2, stack(w, {1}));
    ASSERT_TRUE(w.continueIn(dir_.file("run-1.ssr"), 25 * kMs)) << w.lastError();
    method(w, 1, "app.B", "b");
    method(w, 2, "app.A", "a");
    method(w, 3, "app.C", "c");
    w.writeThread({1, "main", 101, 1});
    w.writeThread({2, "w2", 102, 2});
    const uint32_t ba = stack(w, {1, 2});
    sample(w, 19, 1, ba);
    sample(w, 30, 1, ba);
    sample(w, 40, 2, stack(w, {3}));
    ASSERT_TRUE(w.finish(50 * kMs));
    format::RecordingWriter other;
    ASSERT_TRUE(other.open(dir_.file("run-2.ssr")));
    testing::writeTestInfo(other, "cpu", 1000 * kMs, 8);
    ASSERT_TRUE(other.finish(0));
  }

  // Samples by their top frame's name.
  static std::map<std::string, uint64_t> byTop(const Recording& r) {
    std::map<std::string, uint64_t> counts;
    for (const Event& e : r.events) counts[methodName(r, r.stack(e.stack).front().method)] += e.weight;
    return counts;
  }

  testing::TempDir dir_;
  std::string first_ = dir_.file("run.ssr");
};

TEST_F(RecordingSetTest, PartsAreTheFirstFileAndItsNumberedSiblings) {
  EXPECT_EQ(recordingParts(first_), (std::vector<std::string>{first_, dir_.file("run-1.ssr"), dir_.file("run-2.ssr")}));
  EXPECT_EQ(recordingParts(dir_.file("run-1.ssr")), std::vector<std::string>{dir_.file("run-1.ssr")});
  EXPECT_EQ(recordingParts(dir_.file("none.ssr")), std::vector<std::string>{dir_.file("none.ssr")});
}

TEST_F(RecordingSetTest, PartsMergeIntoOneModelWithIdsRekeyed) {
  const Recording r = loadRecordingSet(first_);
  ASSERT_EQ(r.events.size(), 6u);
  EXPECT_EQ(byTop(r), (std::map<std::string, uint64_t>{{"app.A.a", 2}, {"app.B.b", 3}, {"app.C.c", 1}}));
  for (size_t i = 1; i < r.events.size(); ++i) EXPECT_LE(r.events[i - 1].time_ns, r.events[i].time_ns) << i;
  // The late sample of the second part sits between the first part's samples.
  EXPECT_EQ(r.events[2].time_ns, 19 * kMs);
  // One stack [b a] for both parts, one method b, one string "app.B".
  EXPECT_EQ(r.events[1].stack, r.events[2].stack);
  EXPECT_EQ(r.events[1].stack, r.events[4].stack);
  size_t named_b = 0;
  for (const std::string& s : r.strings) named_b += s == "app.B";
  EXPECT_EQ(named_b, 1u);
  // Threads keep their ids: the later name, the start from the first part.
  EXPECT_EQ(threadName(r, 2), "w2");
  EXPECT_EQ(r.threads[2].start_ns, 1 * kMs);
  EXPECT_TRUE(r.ended);
  EXPECT_EQ(r.end_ns, 50 * kMs);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("run-2.ssr' was left out: it is not a part of this recording"), std::string::npos)
      << r.warnings[0];
}

TEST_F(RecordingSetTest, EachPartReadsOnItsOwnWithItsOwnIds) {
  const Recording second = loadRecording(dir_.file("run-1.ssr"));
  EXPECT_EQ(byTop(second), (std::map<std::string, uint64_t>{{"app.B.b", 2}, {"app.C.c", 1}}));
  EXPECT_TRUE(second.warnings.empty());
  EXPECT_EQ(second.info.pid, 7);
}

TEST_F(RecordingSetTest, AWindowSelectsAcrossParts) {
  const Recording r = loadRecordingSet(first_, {15 * kMs, 35 * kMs});
  EXPECT_EQ(byTop(r), (std::map<std::string, uint64_t>{{"app.A.a", 1}, {"app.B.b", 2}}));
}

TEST_F(RecordingSetTest, PartsLeftWhenTheFirstIsDeletedSayWhatIsMissing) {
  ASSERT_EQ(std::remove(first_.c_str()), 0);
  const Recording r = loadRecordingSet(first_);
  EXPECT_EQ(byTop(r), (std::map<std::string, uint64_t>{{"app.B.b", 2}, {"app.C.c", 1}}));
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings[0].find("files before"), std::string::npos) << r.warnings[0];
}

// The live trace across a rotation: an object allocated in one part and freed in a later one
// is not live in the set (its alloc event gets its death), one never freed is; each part read
// alone still sees only its own deaths.
TEST(RecordingSetLive, AnObjectFreedInALaterPartIsNotLive) {
  testing::TempDir dir;
  const std::string first = dir.file("live.ssr");
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(first));
  testing::writeTestInfo(w, "alloc,live", 1000 * kMs, 9);
  method(w, 1, "app.A", "a");
  w.writeThread({1, "main", 101, 1});
  const uint32_t at = stack(w, {1});
  const uint32_t bytes = w.internString("byte[]");
  w.writeAlloc({1 * kMs, 1, at, bytes, 100, 0, 0, 11});  // freed in the next part
  w.writeAlloc({2 * kMs, 1, at, bytes, 200, 0, 0, 12});  // never freed
  w.writeAlloc({3 * kMs, 1, at, bytes, 300, 0, 0, 13});  // freed in its own part
  w.writeObjectFree({4 * kMs, 13});
  ASSERT_TRUE(w.continueIn(dir.file("live-1.ssr"), 10 * kMs)) << w.lastError();
  w.writeObjectFree({20 * kMs, 11});
  ASSERT_TRUE(w.finish(30 * kMs));

  const auto liveSizes = [](const Recording& r) {
    std::vector<int64_t> deaths;  // of the alloc events, by size order
    std::vector<uint64_t> live;
    for (size_t i = 0; i < r.events.size(); ++i) {
      if (r.events[i].kind == EventKind::Live) live.push_back(r.amounts[1][i]);
      if (r.events[i].kind == EventKind::Alloc) deaths.push_back(r.freed_ns[i]);
    }
    return std::make_pair(live, deaths);
  };
  const auto [set_live, set_deaths] = liveSizes(loadRecordingSet(first));
  EXPECT_EQ(set_live, (std::vector<uint64_t>{200}));
  EXPECT_EQ(set_deaths, (std::vector<int64_t>{20 * kMs, Recording::kNotFreed, 4 * kMs}));
  const auto [alone_live, alone_deaths] = liveSizes(loadRecording(first));
  EXPECT_EQ(alone_live, (std::vector<uint64_t>{100, 200}));
}

}  // namespace
}  // namespace stackscope::analysis

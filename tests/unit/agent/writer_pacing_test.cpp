#include "agent/writer_pacing.h"

#include <gtest/gtest.h>

#include "agent/bounded_queue.h"
#include "agent/meta_events.h"

namespace stackscope::agent {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(WriterPacing, QuietBuffersDoubleTheSleepUpToTheLongest) {
  WriterPacing pacing(WriterPacing::kLongestNs);
  EXPECT_EQ(pacing.periodNs(), 20 * kMs);
  const int64_t expected[] = {40 * kMs, 80 * kMs, 160 * kMs, 320 * kMs, 640 * kMs, 1000 * kMs, 1000 * kMs};
  for (int64_t period : expected) EXPECT_EQ(pacing.next(0, pacing.periodNs(), false), period);
}

// A buffer that fills at a steady rate is found about an eighth full: 200 samples a second
// into 1024 slots settle at 0.125 * 1024 / 200 s = 640 ms.
TEST(WriterPacing, ASteadyRateSettlesWhereADrainFindsAnEighth) {
  WriterPacing pacing(WriterPacing::kLongestNs);
  for (int i = 0; i < 20; ++i) {
    const int64_t slept = pacing.periodNs();
    pacing.next(200.0 * static_cast<double>(slept) / 1e9 / 1024, slept, false);
  }
  EXPECT_NEAR(static_cast<double>(pacing.periodNs()), 640.0 * kMs, 1.0 * kMs);
}

// A nudge cut a 1 s sleep short after 16 ms with the queue a quarter full: the rate is
// judged over the 16 ms, not the second, so the next sleep is the shortest.
TEST(WriterPacing, AFillIsJudgedOverTheTimeItTook) {
  WriterPacing pacing(WriterPacing::kLongestNs);
  for (int i = 0; i < 8; ++i) pacing.next(0, pacing.periodNs(), false);
  ASSERT_EQ(pacing.periodNs(), WriterPacing::kLongestNs);
  EXPECT_EQ(pacing.next(0.25, 16 * kMs, false), WriterPacing::kShortestNs);
  // A flush that comes early with little in the buffers does not shorten it much.
  for (int i = 0; i < 8; ++i) pacing.next(0, pacing.periodNs(), false);
  EXPECT_EQ(pacing.next(0.001, 300 * kMs, false), WriterPacing::kLongestNs);
}

TEST(WriterPacing, AWaitThatMayWantALookKeepsItShort) {
  WriterPacing pacing(WriterPacing::kLongestNs);
  for (int i = 0; i < 8; ++i) pacing.next(0, pacing.periodNs(), false);
  EXPECT_EQ(pacing.next(0, pacing.periodNs(), true), WriterPacing::kShortestNs);
  EXPECT_EQ(pacing.next(0, pacing.periodNs(), true), WriterPacing::kShortestNs);
  EXPECT_EQ(pacing.next(0, pacing.periodNs(), false), 40 * kMs);
}

// A sampling session's samples come in signal handlers, which cannot wake the writer: it
// keeps the shortest sleep whatever its buffers hold.
TEST(WriterPacing, ASamplingSessionKeepsTheShortestSleep) {
  WriterPacing sampling(WriterPacing::kShortestNs);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(sampling.next(0, sampling.periodNs(), false), WriterPacing::kShortestNs);
}

// Events without stacks may wait: a drain that found a few keeps the sleep growing.
TEST(WriterPacing, EventsWithoutStacksOnlyMustNotFillTheirBuffer) {
  WriterPacing pacing(WriterPacing::kLongestNs);
  for (int i = 0; i < 8; ++i) pacing.next(3.0 / 1024, pacing.periodNs(), false);  // 3 collections a drain
  EXPECT_EQ(pacing.periodNs(), WriterPacing::kLongestNs);
}

TEST(WriterWake, OnlyALongSleepIsWokenAndOnlyOnce) {
  int woken = 0;
  WriterWake wake;
  wake.attach([&] { ++woken; });
  wake.nudge();
  EXPECT_EQ(woken, 0) << "not sleeping long";
  wake.sleepingLong(true);
  wake.nudge();
  wake.nudge();
  EXPECT_EQ(woken, 1);
  EXPECT_FALSE(wake.isSleepingLong());
}

// An item without a stack of its own wakes a long sleep as the first after a drain, and a
// burst wakes it at a quarter of the queue, so that it is not dropped.
TEST(WriterWake, AnItemWithoutAStackWakesTheWriterFirstAfterADrainAndAtAQuarterFull) {
  int woken = 0;
  WriterWake wake;
  wake.attach([&] { ++woken; });
  wake.sleepingLong(true);
  BoundedQueue<int> queue(64, &wake);
  queue.push(0);
  EXPECT_EQ(woken, 1);
  wake.sleepingLong(true);
  for (int i = 1; i < 15; ++i) queue.push(int{i});
  EXPECT_EQ(woken, 1) << "not the first after a drain";
  queue.push(15);
  EXPECT_EQ(woken, 2) << "the queue is a quarter full";
  std::vector<int> out;
  queue.takeAll(out);
  wake.sleepingLong(true);
  queue.push(0);
  EXPECT_EQ(woken, 3);
}

struct WithStack {
  std::vector<RawFrame> frames;
};
struct WithStoredStack {
  FrameRange frames;
};

// An event with a stack should be named soon (its class may be unloaded): one with a stack the
// writer has not named wakes a long sleep, one whose stack it named need not, whichever way
// the queue keeps its frames.
TEST(WriterWake, AnEventWakesTheWriterOnlyForAStackItHasNotNamed) {
  int woken = 0;
  WriterWake wake;
  wake.attach([&] { ++woken; });
  int methods[3];
  const std::vector<RawFrame> named{{3, &methods[0]}, {7, &methods[1]}};
  const std::vector<RawFrame> other{{3, &methods[0]}, {8, &methods[1]}};
  BoundedQueue<WithStack> queue(1024, &wake);
  BoundedQueue<WithStoredStack> stored(1024, &wake);
  wake.sleepingLong(true);
  queue.push({named});
  EXPECT_EQ(woken, 1) << "not named yet";
  wake.named(named);
  wake.sleepingLong(true);
  for (int i = 0; i < 10; ++i) queue.push({named});
  stored.push({}, named);
  EXPECT_EQ(woken, 1) << "named before: it may wait";
  stored.push({}, other);
  EXPECT_EQ(woken, 2) << "another bci is another stack";
  wake.sleepingLong(true);
  queue.push({other});
  EXPECT_EQ(woken, 3);
  wake.forgetNamed();  // a rotation: the new file names every stack again
  wake.sleepingLong(true);
  queue.push({named});
  EXPECT_EQ(woken, 4);
}

TEST(WriterWake, ThreadEventsWakeTheWriterAtAQuarterOfTheirPacedCapacity) {
  int woken = 0;
  WriterWake wake;
  wake.attach([&] { ++woken; });
  wake.sleepingLong(true);
  MetaQueue meta(&wake);
  for (size_t i = 0; i + 1 < MetaQueue::kPacedCapacity / 4; ++i) meta.push({});
  EXPECT_EQ(woken, 0) << "thread events have no stacks: they may wait";
  meta.push({});
  EXPECT_EQ(woken, 1);
}

}  // namespace
}  // namespace stackscope::agent

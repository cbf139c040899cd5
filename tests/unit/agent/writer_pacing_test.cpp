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

// An event with a stack should be named soon (its class may be unloaded): the first one
// after a drain wakes a long sleep, the others of that sleep need not.
TEST(WriterWake, AQueuesFirstEventAfterADrainWakesTheWriter) {
  int woken = 0;
  WriterWake wake;
  wake.attach([&] { ++woken; });
  wake.sleepingLong(true);
  BoundedQueue<int> queue(64, &wake);
  queue.push(0);
  EXPECT_EQ(woken, 1);
  wake.sleepingLong(true);
  for (int i = 1; i < 40; ++i) queue.push(int{i});
  EXPECT_EQ(woken, 1) << "not the first after a drain";
  std::vector<int> out;
  queue.takeAll(out);
  queue.push(0);
  EXPECT_EQ(woken, 2);
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

// A cpu sample's weight is the CPU time its thread used since the previous one, in intervals.
#include "agent/cpu_intervals.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(CpuIntervals, SignalsOnTimeStandForOneIntervalEach) {
  std::atomic<int64_t> sampled{0};
  // Each signal a little late or early around the 5 ms marks.
  const int64_t clock[] = {5 * kMs + 3000, 10 * kMs - 2000, 15 * kMs + 90000, 20 * kMs};
  for (int64_t now : clock) EXPECT_EQ(takeOwedIntervals(sampled, now, 5 * kMs), 1u) << now;
}

TEST(CpuIntervals, SignalsTheKernelDidNotSendAreCountedByTheNextSample) {
  std::atomic<int64_t> sampled{0};
  EXPECT_EQ(takeOwedIntervals(sampled, 5 * kMs, 5 * kMs), 1u);
  // Two signals throttled: the third stands for all three intervals.
  EXPECT_EQ(takeOwedIntervals(sampled, 20 * kMs + 1000, 5 * kMs), 3u);
  EXPECT_EQ(takeOwedIntervals(sampled, 25 * kMs, 5 * kMs), 1u);
}

TEST(CpuIntervals, TheWeightsAddUpToTheCpuTimeWhateverTheSignals) {
  std::atomic<int64_t> sampled{0};
  uint64_t weights = 0;
  // One signal in three delivered, at irregular CPU times.
  int64_t now = 0;
  for (int i = 0; i < 300; ++i) {
    now += (i % 2 ? 14 : 16) * kMs;
    weights += takeOwedIntervals(sampled, now, 5 * kMs);
  }
  EXPECT_NEAR(static_cast<double>(weights), static_cast<double>(now / (5 * kMs)), 1.0);
}

TEST(CpuIntervals, EarlySignalsCountOnceAndLeaveNoCredit) {
  std::atomic<int64_t> sampled{0};
  // Signals every 2 ms of CPU (a task clock that ran on while the CPU was stolen).
  for (int64_t now = 2 * kMs; now <= 10 * kMs; now += 2 * kMs) EXPECT_EQ(takeOwedIntervals(sampled, now, 5 * kMs), 1u);
  EXPECT_LE(sampled.load(), 10 * kMs) << "never ahead of the clock";
  // A loss after them is still seen: 20 ms more of CPU is four intervals.
  EXPECT_EQ(takeOwedIntervals(sampled, 30 * kMs, 5 * kMs), 4u);
}

TEST(CpuIntervals, AnUnknownClockCountsOneSample) {
  std::atomic<int64_t> unknown{-1};
  EXPECT_EQ(takeOwedIntervals(unknown, 50 * kMs, 5 * kMs), 1u);
  std::atomic<int64_t> sampled{0};
  EXPECT_EQ(takeOwedIntervals(sampled, -1, 5 * kMs), 1u);
  EXPECT_EQ(sampled.load(), 0) << "an unreadable clock moves nothing";
}

}  // namespace
}  // namespace stackscope::agent

// A cpu sample's weight is the CPU time its thread used since the previous one, in intervals.
#include "agent/cpu_intervals.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

constexpr int64_t kMs = 1'000'000;

struct Signals {
  uint64_t weights = 0;  // of all the signals, at 5 ms
  int64_t clock_ns = 0;  // the thread's CPU clock at the last one
};

// `count` signals, the thread's clock moving on by cpu_ns(i) before signal i.
template <typename CpuNs>
Signals signalsAfter(int count, CpuNs cpu_ns) {
  SampledCpuTime sampled;
  sampled.arm(0);
  Signals run;
  for (int i = 0; i < count; ++i) {
    run.clock_ns += cpu_ns(i);
    run.weights += takeOwedIntervals(sampled, run.clock_ns, 5 * kMs);
  }
  return run;
}

TEST(CpuIntervals, SignalsOnTimeStandForOneIntervalEach) {
  SampledCpuTime sampled;
  sampled.arm(0);
  // Each signal a little late or early around the 5 ms marks.
  const int64_t clock[] = {5 * kMs + 3000, 10 * kMs - 2000, 15 * kMs + 90000, 20 * kMs};
  for (int64_t now : clock) EXPECT_EQ(takeOwedIntervals(sampled, now, 5 * kMs), 1u) << now;
}

TEST(CpuIntervals, SignalsTheKernelDidNotSendAreCountedByTheNextSample) {
  SampledCpuTime sampled;
  sampled.arm(0);
  EXPECT_EQ(takeOwedIntervals(sampled, 5 * kMs, 5 * kMs), 1u);
  // Two signals throttled: the third stands for all three intervals.
  EXPECT_EQ(takeOwedIntervals(sampled, 20 * kMs + 1000, 5 * kMs), 3u);
  EXPECT_EQ(takeOwedIntervals(sampled, 25 * kMs, 5 * kMs), 1u);
}

TEST(CpuIntervals, TheWeightsAddUpToTheCpuTimeWhateverTheSignals) {
  // One signal in three delivered, at irregular CPU times.
  const Signals run = signalsAfter(300, [](int i) { return (i % 2 ? 14 : 16) * kMs; });
  EXPECT_NEAR(static_cast<double>(run.weights), static_cast<double>(run.clock_ns / (5 * kMs)), 1.0);
}

TEST(CpuIntervals, OnlyTheFirstEarlySignalCountsAndItLeavesNoCredit) {
  SampledCpuTime sampled;
  sampled.arm(0);
  // Signals every 2 ms of CPU (a task clock that ran on while the CPU was stolen): the first
  // counts once, so a thread that ran that little still shows.
  EXPECT_EQ(takeOwedIntervals(sampled, 2 * kMs, 5 * kMs), 1u);
  EXPECT_EQ(sampled.ns.load(), 2 * kMs) << "never ahead of the clock";
  EXPECT_EQ(takeOwedIntervals(sampled, 4 * kMs, 5 * kMs), 0u);
  EXPECT_EQ(takeOwedIntervals(sampled, 6 * kMs, 5 * kMs), 1u) << "4 ms since the first: one interval, rounded";
  EXPECT_EQ(sampled.ns.load(), 7 * kMs);
  EXPECT_EQ(takeOwedIntervals(sampled, 8 * kMs, 5 * kMs), 0u);
  // A loss after them is still seen: 23 ms more of CPU is five intervals (rounded).
  EXPECT_EQ(takeOwedIntervals(sampled, 30 * kMs, 5 * kMs), 5u);
}

TEST(CpuIntervals, StolenTimeAddsNoWeight) {
  // The task clock fires every 5 ms of (run + steal) while the thread ran 3 ms of each: 1.5 s
  // of CPU in 500 signals. Counting each signal once would make that 2.5 s.
  const Signals run = signalsAfter(500, [](int) { return 3 * kMs; });
  EXPECT_NEAR(static_cast<double>(run.weights), static_cast<double>(run.clock_ns / (5 * kMs)), 1.0);
}

TEST(CpuIntervals, ArmingAgainLetsTheNextEarlySignalCount) {
  SampledCpuTime sampled;
  sampled.arm(0);
  EXPECT_EQ(takeOwedIntervals(sampled, 5 * kMs, 5 * kMs), 1u);
  // Disarmed, then armed again at 40 ms: a task clock keeps what was left of its period, so
  // the first signal may come 1 ms later.
  sampled.arm(40 * kMs);
  EXPECT_EQ(takeOwedIntervals(sampled, 41 * kMs, 5 * kMs), 1u);
  EXPECT_EQ(takeOwedIntervals(sampled, 42 * kMs, 5 * kMs), 0u);
}

TEST(CpuIntervals, AnUnknownClockCountsOneSample) {
  SampledCpuTime unknown;  // never armed
  EXPECT_EQ(takeOwedIntervals(unknown, 50 * kMs, 5 * kMs), 1u);
  EXPECT_EQ(takeOwedIntervals(unknown, 51 * kMs, 5 * kMs), 1u);
  SampledCpuTime sampled;
  sampled.arm(0);
  EXPECT_EQ(takeOwedIntervals(sampled, -1, 5 * kMs), 1u);
  EXPECT_EQ(sampled.ns.load(), 0) << "an unreadable clock moves nothing";
}

}  // namespace
}  // namespace stackscope::agent

#include "agent/idle_backoff.h"

#include <gtest/gtest.h>

#include <set>

namespace stackscope::agent {
namespace {

TEST(IdleBackoff, CapKeepsTheLookGapAtMost64ms) {
  EXPECT_EQ(maxIdlePeriod(1'000'000), 64u);    // 1 ms
  EXPECT_EQ(maxIdlePeriod(10'000'000), 6u);    // 10 ms: 60 ms
  EXPECT_EQ(maxIdlePeriod(100'000), 64u);      // capped in ticks too
  EXPECT_EQ(maxIdlePeriod(1'000'000'000), 1u);  // slow intervals look every tick
}

TEST(IdleBackoff, PeriodDoublesUpToTheCap) {
  uint32_t period = 1;
  std::vector<uint32_t> seen;
  for (int i = 0; i < 8; ++i) seen.push_back(period = longerIdlePeriod(period, 64));
  EXPECT_EQ(seen, (std::vector<uint32_t>{2, 4, 8, 16, 32, 64, 64, 64}));
  EXPECT_EQ(longerIdlePeriod(4, 6), 6u);
}

TEST(IdleBackoff, NextLookIsWithinThePeriodAndSpreadOverThreads) {
  std::set<uint64_t> ticks;
  for (uint32_t id = 1; id <= 100; ++id) {
    const uint64_t next = nextLookTick(1000, 64, id);
    EXPECT_GT(next, 1000u + 32);
    EXPECT_LE(next, 1000u + 64);
    ticks.insert(next);
  }
  EXPECT_EQ(ticks.size(), 32u);  // every offset of half the period is used
  EXPECT_EQ(nextLookTick(10, 2, 7), 12u);  // short periods are exact
}

}  // namespace
}  // namespace stackscope::agent

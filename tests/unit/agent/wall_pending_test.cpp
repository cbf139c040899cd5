#include "agent/wall_pending.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>

namespace stackscope::agent {
namespace {

TEST(WallPending, MaxWeightIsASecondOfTicks) {
  EXPECT_EQ(maxPendingWeight(10'000'000), 100u);
  EXPECT_EQ(maxPendingWeight(1'000'000), 1000u);
  EXPECT_EQ(maxPendingWeight(1'000'000'000), 2u) << "at least one tick waits besides the signal's own";
  EXPECT_EQ(maxPendingWeight(5'000'000'000), 2u);
  EXPECT_EQ(maxPendingWeight(1), 1'000'000u) << "capped";
  EXPECT_EQ(maxPendingWeight(0), 1'000'000u);
}

TEST(WallPending, NothingPendingLeavesTheTickToTheSampler) {
  std::atomic<uint32_t> pending{0};
  EXPECT_EQ(addPendingTick(pending, 100), PendingTick::NotPending);
  EXPECT_EQ(pending.load(), 0u);
  EXPECT_EQ(takePendingWeight(pending), 0u);
}

TEST(WallPending, TicksWhileSignalledAddToTheCapturesWeight) {
  std::atomic<uint32_t> pending{1};  // the sampler signalled
  EXPECT_EQ(addPendingTick(pending, 100), PendingTick::Added);
  EXPECT_EQ(addPendingTick(pending, 100), PendingTick::Added);
  EXPECT_EQ(takePendingWeight(pending), 3u) << "the signal's tick and the two that waited";
  EXPECT_EQ(addPendingTick(pending, 100), PendingTick::NotPending) << "taken: no longer pending";
}

TEST(WallPending, TicksBeyondTheCapAreRefused) {
  std::atomic<uint32_t> pending{1};
  EXPECT_EQ(addPendingTick(pending, 3), PendingTick::Added);
  EXPECT_EQ(addPendingTick(pending, 3), PendingTick::Added);
  EXPECT_EQ(addPendingTick(pending, 3), PendingTick::Full);
  EXPECT_EQ(addPendingTick(pending, 3), PendingTick::Full);
  EXPECT_EQ(takePendingWeight(pending), 3u);
}

// The sampler adds ticks while the handler takes the weight: every tick lands in exactly one
// capture, or is refused (and then the sampler samples or counts it).
TEST(WallPending, EveryTickCountsOnceUnderRaces) {
  constexpr int kRounds = 200'000;
  std::atomic<uint32_t> pending{0};
  std::atomic<bool> started{false};
  std::atomic<bool> done{false};
  uint64_t taken = 0;
  std::thread handler([&] {
    started.store(true);
    while (!done.load()) taken += takePendingWeight(pending);
    taken += takePendingWeight(pending);
  });
  while (!started.load()) std::this_thread::yield();
  uint64_t signalled = 0, added = 0, refused = 0;
  for (int i = 0; i < kRounds; ++i) {
    switch (addPendingTick(pending, kRounds + 1)) {
      case PendingTick::Added: ++added; break;
      case PendingTick::Full: ++refused; break;
      case PendingTick::NotPending:
        // Only the sampler makes it pending, and only from 0.
        uint32_t expected = 0;
        ASSERT_TRUE(pending.compare_exchange_strong(expected, 1));
        ++signalled;
        break;
    }
  }
  done.store(true);
  handler.join();
  EXPECT_EQ(taken, signalled + added);
  EXPECT_EQ(refused, 0u);
  EXPECT_GT(signalled, 0u);
}

}  // namespace
}  // namespace stackscope::agent

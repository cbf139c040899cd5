#include "agent/stack_memo.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace stackscope::agent {
namespace {

// A chain of `frames` two-word frames, all derived from `seed`: distinct seeds, distinct chains.
std::string chainOf(uint64_t seed, int frames = 3) {
  std::string bytes;
  for (int i = 0; i < 2 * frames; ++i) {
    const uint64_t word = seed * 1000 + static_cast<uint64_t>(i);
    bytes.append(reinterpret_cast<const char*>(&word), sizeof word);
  }
  return bytes;
}

// The frames remembered for chain `seed`: its count and contents follow from it.
std::vector<RawFrame> framesOf(uint64_t seed) {
  std::vector<RawFrame> frames;
  for (uint64_t i = 0; i < 1 + seed % 7; ++i) frames.push_back({static_cast<int32_t>(i), reinterpret_cast<const void*>(seed * 16 + i)});
  return frames;
}

bool same(const std::vector<RawFrame>& expected, const RawFrame* got, size_t count) {
  if (expected.size() != count) return false;
  for (size_t i = 0; i < count; ++i)
    if (!sameFrame(expected[i], got[i])) return false;
  return true;
}

TEST(StackMemo, GivesWhatWasRememberedForTheWholeChainOnly) {
  StackMemo memo;
  RawFrame out[kMaxFrames];
  size_t count = 0;
  EXPECT_FALSE(memo.find(chainOf(1), out, count));
  memo.remember(chainOf(1), framesOf(1));
  ASSERT_TRUE(memo.find(chainOf(1), out, count));
  EXPECT_TRUE(same(framesOf(1), out, count));
  // A prefix or an extension of a known chain is another chain.
  EXPECT_FALSE(memo.find(chainOf(1, 2), out, count));
  EXPECT_FALSE(memo.find(chainOf(1, 4), out, count));
  // The first frames remembered for a chain stay.
  memo.remember(chainOf(1), framesOf(2));
  ASSERT_TRUE(memo.find(chainOf(1), out, count));
  EXPECT_TRUE(same(framesOf(1), out, count));
}

TEST(StackMemo, StaysWithinItsBoundsAndStartsPartsAgainEmpty) {
  StackMemo memo;
  constexpr uint64_t kChains = 3 * StackMemo::kShards * StackMemo::kMaxEntriesPerShard;
  for (uint64_t seed = 0; seed < kChains; ++seed) {
    memo.remember(chainOf(seed), framesOf(seed));
    ASSERT_LE(memo.size(), StackMemo::kShards * StackMemo::kMaxEntriesPerShard);
  }
  EXPECT_GT(memo.restarts(), 0u);
  // The last chain is always there after its own remember.
  RawFrame out[kMaxFrames];
  size_t count = 0;
  ASSERT_TRUE(memo.find(chainOf(kChains - 1), out, count));
  EXPECT_TRUE(same(framesOf(kChains - 1), out, count));
  // A stack larger than a part's frame budget is not kept.
  const std::vector<RawFrame> huge(StackMemo::kMaxFramesPerShard + 1, RawFrame{1, nullptr});
  memo.remember(chainOf(kChains), huge);
  EXPECT_FALSE(memo.find(chainOf(kChains), out, count));
}

TEST(StackMemo, ManyThreadsAtOnceOnlyEverFindTheirChainsFrames) {
  StackMemo memo;
  constexpr int kThreads = 8;
  constexpr uint64_t kSeeds = 2000;  // more than the memo holds: restarts while others read
  std::atomic<uint64_t> wrong{0}, found{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      RawFrame out[kMaxFrames];
      for (int pass = 0; pass < 3; ++pass) {
        for (uint64_t i = 0; i < kSeeds; ++i) {
          const uint64_t seed = (i * 7 + static_cast<uint64_t>(t)) % kSeeds;
          size_t count = 0;
          if (memo.find(chainOf(seed), out, count)) {
            found.fetch_add(1);
            if (!same(framesOf(seed), out, count)) wrong.fetch_add(1);
          } else {
            memo.remember(chainOf(seed), framesOf(seed));
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(found.load(), 0u);
  EXPECT_LE(memo.size(), StackMemo::kShards * StackMemo::kMaxEntriesPerShard);
}

}  // namespace
}  // namespace stackscope::agent

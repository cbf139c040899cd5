#include "agent/raw_stack_cache.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

const void* method(uintptr_t n) { return reinterpret_cast<const void*>(n); }
using Frames = std::vector<RawFrame>;

// A stack is found again only with the same top frame and the same frames, bci included.
TEST(RawStackCache, FindsOnlyTheSameTopAndFrames) {
  RawStackCache cache;
  const std::vector<RawFrame> stack{{3, method(0x10)}, {7, method(0x20)}};
  EXPECT_EQ(cache.find(5, stack), 0u);
  cache.remember(5, stack, 42);
  EXPECT_EQ(cache.find(5, stack), 42u);
  EXPECT_EQ(cache.find(6, stack), 0u);                                          // another class frame
  EXPECT_EQ(cache.find(5, Frames{{4, method(0x10)}, {7, method(0x20)}}), 0u);         // another bci
  EXPECT_EQ(cache.find(5, Frames{{3, method(0x10)}}), 0u);                            // a prefix
  EXPECT_EQ(cache.find(5, Frames{{3, method(0x10)}, {7, method(0x20)}, {1, method(0x30)}}), 0u);  // deeper
  cache.remember(0, Frames{}, 9);  // the empty stack under no top frame
  EXPECT_EQ(cache.find(0, Frames{}), 9u);
}

// Past its bound the cache starts again empty: what it forgot is a miss, never a wrong id.
TEST(RawStackCache, StartsAgainEmptyPastItsBound) {
  RawStackCache cache;
  for (uint32_t i = 0; i < RawStackCache::kMaxEntries; ++i) cache.remember(i + 1, Frames{{0, method(1)}}, i + 1);
  EXPECT_EQ(cache.find(1, Frames{{0, method(1)}}), 1u);
  cache.remember(0, Frames{{0, method(2)}}, 7);
  EXPECT_EQ(cache.find(1, Frames{{0, method(1)}}), 0u);
  EXPECT_EQ(cache.find(0, Frames{{0, method(2)}}), 7u);
}

// The frames it holds are bounded too (deep stacks of every sample): past kMaxFramesHeld it
// starts again empty, and a stack replaced under the same key does not count twice.
TEST(RawStackCache, StartsAgainEmptyPastItsFrameBound) {
  RawStackCache cache;
  const size_t third = RawStackCache::kMaxFramesHeld / 3;
  const std::vector<RawFrame> first(third, RawFrame{1, method(0x10)});
  const std::vector<RawFrame> second(third, RawFrame{2, method(0x10)});
  const std::vector<RawFrame> third_stack(third, RawFrame{3, method(0x10)});
  cache.remember(0, first, 1);
  for (int again = 0; again < 4; ++again) cache.remember(0, second, 2);  // held once
  cache.remember(0, third_stack, 3);  // 3 thirds: still within the bound
  EXPECT_EQ(cache.find(0, first), 1u);
  cache.remember(0, Frames{{0, method(0x20)}, {0, method(0x30)}, {0, method(0x40)}}, 4);  // past it
  EXPECT_EQ(cache.find(0, first), 0u);
  EXPECT_EQ(cache.find(0, second), 0u);
  EXPECT_EQ(cache.find(0, Frames{{0, method(0x20)}, {0, method(0x30)}, {0, method(0x40)}}), 4u);
}

}  // namespace
}  // namespace stackscope::agent

#include "agent/raw_stack_cache.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

const void* method(uintptr_t n) { return reinterpret_cast<const void*>(n); }

// A stack is found again only with the same top frame and the same frames, bci included.
TEST(RawStackCache, FindsOnlyTheSameTopAndFrames) {
  RawStackCache cache;
  const std::vector<RawFrame> stack{{3, method(0x10)}, {7, method(0x20)}};
  EXPECT_EQ(cache.find(5, stack), 0u);
  cache.remember(5, stack, 42);
  EXPECT_EQ(cache.find(5, stack), 42u);
  EXPECT_EQ(cache.find(6, stack), 0u);                                          // another class frame
  EXPECT_EQ(cache.find(5, {{4, method(0x10)}, {7, method(0x20)}}), 0u);         // another bci
  EXPECT_EQ(cache.find(5, {{3, method(0x10)}}), 0u);                            // a prefix
  EXPECT_EQ(cache.find(5, {{3, method(0x10)}, {7, method(0x20)}, {1, method(0x30)}}), 0u);  // deeper
  cache.remember(0, {}, 9);  // the empty stack under no top frame
  EXPECT_EQ(cache.find(0, {}), 9u);
}

// Past its bound the cache starts again empty: what it forgot is a miss, never a wrong id.
TEST(RawStackCache, StartsAgainEmptyPastItsBound) {
  RawStackCache cache;
  for (uint32_t i = 0; i < RawStackCache::kMaxEntries; ++i) cache.remember(i + 1, {{0, method(1)}}, i + 1);
  EXPECT_EQ(cache.find(1, {{0, method(1)}}), 1u);
  cache.remember(0, {{0, method(2)}}, 7);
  EXPECT_EQ(cache.find(1, {{0, method(1)}}), 0u);
  EXPECT_EQ(cache.find(0, {{0, method(2)}}), 7u);
}

}  // namespace
}  // namespace stackscope::agent

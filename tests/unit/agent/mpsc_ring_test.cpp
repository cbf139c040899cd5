#include "agent/mpsc_ring.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "agent/sample_slot.h"

namespace stackscope::agent {
namespace {

struct Item {
  uint32_t producer;
  uint32_t seq;
};

bool push(MpscRing<Item>& ring, uint32_t producer, uint32_t seq) {
  const auto claim = ring.tryClaim();
  if (!claim) return false;
  *claim.slot = {producer, seq};
  ring.publish(claim);
  return true;
}

TEST(MpscRing, EmptyHasNoFront) {
  MpscRing<Item> ring(4);
  EXPECT_EQ(ring.front(), nullptr);
  EXPECT_EQ(ring.capacity(), 4u);
}

TEST(MpscRing, FifoAndFullAndWrapAround) {
  MpscRing<Item> ring(4);
  for (uint32_t round = 0; round < 5; ++round) {
    for (uint32_t i = 0; i < 4; ++i) EXPECT_TRUE(push(ring, 0, round * 10 + i));
    EXPECT_FALSE(push(ring, 0, 99)) << "a full ring refuses";
    for (uint32_t i = 0; i < 4; ++i) {
      const Item* item = ring.front();
      ASSERT_NE(item, nullptr);
      EXPECT_EQ(item->seq, round * 10 + i);
      ring.pop();
    }
    EXPECT_EQ(ring.front(), nullptr);
  }
}

TEST(MpscRing, PoppingOneFreesOne) {
  MpscRing<Item> ring(2);
  EXPECT_TRUE(push(ring, 0, 1));
  EXPECT_TRUE(push(ring, 0, 2));
  EXPECT_FALSE(push(ring, 0, 3));
  ring.pop();
  EXPECT_TRUE(push(ring, 0, 3));
  EXPECT_EQ(ring.front()->seq, 2u);
}

TEST(MpscRing, ClaimedButUnpublishedSlotStopsTheConsumer) {
  MpscRing<Item> ring(4);
  const auto first = ring.tryClaim();
  ASSERT_TRUE(first);
  EXPECT_TRUE(push(ring, 0, 2));  // published after an unpublished one
  EXPECT_EQ(ring.front(), nullptr);
  *first.slot = {0, 1};
  ring.publish(first);
  ASSERT_NE(ring.front(), nullptr);
  EXPECT_EQ(ring.front()->seq, 1u);
  ring.pop();
  EXPECT_EQ(ring.front()->seq, 2u);
}

// Producers push numbered items into a small ring while one consumer drains it: every item
// is either consumed exactly once, in order per producer, or refused as full.
TEST(MpscRing, ManyProducersOneConsumer) {
  constexpr uint32_t kProducers = 4;
  constexpr uint32_t kPerProducer = 200'000;
  MpscRing<Item> ring(64);
  std::atomic<uint64_t> refused{0};
  std::atomic<uint32_t> finished{0};
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < kProducers; ++p) {
    producers.emplace_back([&, p] {
      for (uint32_t i = 0; i < kPerProducer; ++i) {
        if (!push(ring, p, i)) refused.fetch_add(1, std::memory_order_relaxed);
      }
      finished.fetch_add(1);
    });
  }
  std::vector<int64_t> last(kProducers, -1);
  uint64_t consumed = 0;
  bool in_order = true;
  auto drain = [&] {
    while (const Item* item = ring.front()) {
      if (static_cast<int64_t>(item->seq) <= last[item->producer]) in_order = false;
      last[item->producer] = item->seq;
      ++consumed;
      ring.pop();
    }
  };
  while (finished.load() < kProducers) drain();
  for (auto& t : producers) t.join();
  drain();
  EXPECT_TRUE(in_order);
  EXPECT_EQ(consumed + refused.load(), uint64_t{kProducers} * kPerProducer);
  EXPECT_GT(consumed, 0u);
}

TEST(SampleSlot, LayoutLimits) {
  EXPECT_EQ(kMaxRepeats, 682u) << "12-byte entries (thread, annotation, state) in 8 KB";
  EXPECT_LE(kMaxRepeats, 65535u) << "count is 16 bits";
  EXPECT_EQ(sizeof(RawFrame), 16u);
}

}  // namespace
}  // namespace stackscope::agent

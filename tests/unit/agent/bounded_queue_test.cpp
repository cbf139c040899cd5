#include "agent/bounded_queue.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace stackscope::agent {
namespace {

// What does not fit is counted, never queued, and a taken queue makes room again.
TEST(BoundedQueue, CountsWhatDoesNotFitAndEmptiesOnTake) {
  BoundedQueue<int> queue(3, nullptr);
  for (int i = 0; i < 5; ++i) queue.push(int{i});
  EXPECT_TRUE(queue.full());
  EXPECT_EQ(queue.dropped(), 2u);
  std::vector<int> out{42};
  queue.takeAll(out);
  EXPECT_EQ(out, (std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(queue.full());
  queue.drop();  // a caller that gave up on full() counts its event
  EXPECT_EQ(queue.dropped(), 3u);
  queue.push(7);
  queue.takeAll(out);
  EXPECT_EQ(out, std::vector<int>{7});
}

// Producers on several threads and a consumer: every item is either taken or counted.
TEST(BoundedQueue, EveryItemIsTakenOrCounted) {
  BoundedQueue<int> queue(64, nullptr);
  constexpr int kThreads = 4, kEach = 10000;
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t)
    producers.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) queue.push(int{i});
    });
  size_t taken = 0;
  std::vector<int> batch;
  for (int round = 0; round < 1000; ++round) {
    queue.takeAll(batch);
    taken += batch.size();
  }
  for (std::thread& p : producers) p.join();
  queue.takeAll(batch);
  taken += batch.size();
  EXPECT_EQ(taken + queue.dropped(), size_t{kThreads} * kEach);
}

// Items pushed with frames from several threads: each item taken finds its own frames in the
// frame store taken with it, whatever the interleaving with the takes.
// The frame store is bounded too: an item whose frames would take it past its bound is
// dropped and counted, the items before it kept whole; a take makes room again.
TEST(BoundedQueue, FramesBeyondTheStoresBoundDropTheirItem) {
  struct Item {
    FrameRange frames;
  };
  constexpr size_t kChunk = BoundedQueue<Item>::kMaxQueuedFrames / 4;
  BoundedQueue<Item> queue(64, nullptr);
  const std::vector<RawFrame> frames(kChunk, RawFrame{1, nullptr});
  for (int i = 0; i < 5; ++i) queue.push(Item{}, frames);
  EXPECT_EQ(queue.dropped(), 1u);
  std::vector<Item> batch;
  std::vector<RawFrame> store;
  queue.takeAll(batch, store);
  ASSERT_EQ(batch.size(), 4u);
  EXPECT_EQ(store.size(), 4 * kChunk);
  EXPECT_EQ(batch.back().frames.first, 3 * kChunk);
  queue.push(Item{}, frames);
  EXPECT_EQ(queue.dropped(), 1u);
}

TEST(BoundedQueue, EachItemKeepsItsOwnFrames) {
  struct Item {
    int producer = 0, index = 0;
    FrameRange frames;
  };
  BoundedQueue<Item> queue(64, nullptr);
  constexpr int kThreads = 4, kEach = 5000;
  const auto method = [](int producer) { return reinterpret_cast<const void*>(uintptr_t(producer) + 1); };
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t)
    producers.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::vector<RawFrame> frames(i % 7, RawFrame{i, method(t)});  // 0 to 6 frames, all saying (t, i)
        queue.push(Item{t, i, {}}, frames);
      }
    });
  size_t taken = 0, wrong = 0;
  std::vector<Item> batch;
  std::vector<RawFrame> store;
  const auto check = [&] {
    for (const Item& item : batch) {
      const auto frames = item.frames.in(store);
      wrong += frames.size() != size_t(item.index % 7);
      for (const RawFrame& f : frames) wrong += f.bci != item.index || f.method != method(item.producer);
    }
    taken += batch.size();
  };
  for (int round = 0; round < 1000; ++round) {
    queue.takeAll(batch, store);
    check();
  }
  for (std::thread& p : producers) p.join();
  queue.takeAll(batch, store);
  check();
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(taken + queue.dropped(), size_t{kThreads} * kEach);
  EXPECT_GT(taken, 0u);
}

// A frame store grown past kMaxKeptFrames by a burst is given back at the next take, not kept
// for the rest of the run; a smaller one is kept and reused.
TEST(BoundedQueue, AFrameStoreGrownByABurstIsGivenBack) {
  struct Item {
    FrameRange frames;
  };
  BoundedQueue<Item> queue(8, nullptr);
  const std::vector<RawFrame> burst(BoundedQueue<Item>::kMaxKeptFrames + 1, RawFrame{1, nullptr});
  queue.push(Item{}, burst);
  std::vector<Item> batch;
  std::vector<RawFrame> store;
  queue.takeAll(batch, store);
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].frames.in(store).size(), burst.size());
  queue.push(Item{}, std::vector<RawFrame>(3, RawFrame{2, nullptr}));
  queue.takeAll(batch, store);  // gives the burst's store back, takes the small one
  EXPECT_EQ(batch[0].frames.in(store).size(), 3u);
  queue.takeAll(batch, store);
  EXPECT_LE(store.capacity(), BoundedQueue<Item>::kMaxKeptFrames);
}

}  // namespace
}  // namespace stackscope::agent

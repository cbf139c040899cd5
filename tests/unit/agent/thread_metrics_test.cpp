#include "agent/thread_metrics.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

// A thread's deltas add up to its counters' growth from its base to its last reading, the CPU
// clock to the microsecond, whatever the readings' sub-microsecond parts.
TEST(ThreadMetrics, DeltasAddUpToTheCountersGrowth) {
  MetricBase base{1'999, 100};
  const int64_t cpu[] = {12'345, 12'999, 25'001, 25'001, 1'000'000'007};
  const int64_t allocated[] = {100, 4'196, 4'196, 70'000, 1'000'000};
  uint64_t cpu_us = 0, bytes = 0;
  for (int i = 0; i < 5; ++i) {
    const MetricDeltas d = takeDeltas(base, {cpu[i], allocated[i]});
    cpu_us += d.cpu_us;
    bytes += d.alloc_bytes;
  }
  EXPECT_EQ(cpu_us, uint64_t{1'000'000 - 1});  // whole microseconds: 1'000'000'007/1000 - 1'999/1000
  EXPECT_EQ(bytes, uint64_t{1'000'000 - 100});
  EXPECT_EQ(base.cpu_ns, 1'000'000'007);
  EXPECT_EQ(base.allocated, 1'000'000);
}

// An unknown base: the first reading becomes it, and its sample carries nothing. An unknown
// reading (-1) changes nothing.
TEST(ThreadMetrics, UnknownReadingsCarryNothing) {
  MetricBase base;
  MetricDeltas d = takeDeltas(base, {5'000, 300});
  EXPECT_EQ(d.cpu_us, 0u);
  EXPECT_EQ(d.alloc_bytes, 0u);
  d = takeDeltas(base, {-1, -1});
  EXPECT_EQ(d.cpu_us, 0u);
  EXPECT_EQ(d.alloc_bytes, 0u);
  EXPECT_EQ(base.cpu_ns, 5'000);
  EXPECT_EQ(base.allocated, 300);
  d = takeDeltas(base, {7'000, 400});
  EXPECT_EQ(d.cpu_us, 2u);
  EXPECT_EQ(d.alloc_bytes, 100u);
}

// A reading torn by a TLAB being retired (its bytes counted twice for an instant) is not
// counted twice: the base does not move back down, so later readings make up for it.
TEST(ThreadMetrics, ATornAllocationReadingIsNotCountedTwice) {
  MetricBase base{0, 1'000};
  EXPECT_EQ(takeDeltas(base, {0, 9'000}).alloc_bytes, 8'000u);  // 4 KiB TLAB counted in both places
  EXPECT_EQ(takeDeltas(base, {0, 5'000}).alloc_bytes, 0u);      // back to the truth: nothing
  EXPECT_EQ(takeDeltas(base, {0, 10'000}).alloc_bytes, 1'000u);
  EXPECT_EQ(base.allocated, 10'000);  // 9'000 in all, the growth from 1'000
}

}  // namespace
}  // namespace stackscope::agent

#include "agent/clocks.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace stackscope::agent {
namespace {

void burn(int64_t ns) {
  const int64_t end = currentThreadCpuTimeNs() + ns;
  volatile uint64_t sink = 0;
  while (currentThreadCpuTimeNs() < end) sink = sink + 1;
}

TEST(Clocks, OwnThreadCpuClockFromTid) {
  burn(2'000'000);
  const int64_t by_tid = threadCpuTimeNs(gettid());
  const int64_t own = currentThreadCpuTimeNs();
  ASSERT_GT(by_tid, 0);
  EXPECT_LE(by_tid, own);
  EXPECT_LT(own - by_tid, 50'000'000);
}

TEST(Clocks, AnotherThreadsCpuClock) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::thread other([&] {
    burn(20'000'000);
    tid = gettid();
    while (!done) std::this_thread::yield();
  });
  while (tid == 0) std::this_thread::yield();
  EXPECT_GE(threadCpuTimeNs(tid), 20'000'000);
  done = true;
  other.join();
  // Once the thread is reaped (shortly after join returns) its clock cannot be read.
  int64_t after = 0;
  for (int i = 0; i < 1000 && (after = threadCpuTimeNs(tid)) != -1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(after, -1);
}

TEST(Clocks, CpuLoadPermille) {
  EXPECT_EQ(cpuLoadPermille(1'000'000'000, 1'000'000'000, 4), 250u);
  EXPECT_EQ(cpuLoadPermille(4'000'000'000, 1'000'000'000, 4), 1000u);
  EXPECT_EQ(cpuLoadPermille(8'000'000'000, 1'000'000'000, 4), 1000u);  // clamped
  EXPECT_EQ(cpuLoadPermille(0, 1'000'000'000, 4), 0u);
  EXPECT_EQ(cpuLoadPermille(1, 0, 4), 0u);
  EXPECT_EQ(cpuLoadPermille(1, 1, 0), 0u);
}

TEST(Clocks, MonotonicMoves) {
  const int64_t a = monotonicNs();
  const int64_t b = monotonicNs();
  EXPECT_GT(a, 0);
  EXPECT_GE(b, a);
  EXPECT_GT(realtimeNs(), 1'600'000'000LL * 1'000'000'000);
}

}  // namespace
}  // namespace stackscope::agent

// The pause clocks: GC time from the callbacks, HotSpot's safepoint counters found in a
// PerfData block laid out as HotSpot lays it out, and late ticks split between them.
#include "agent/vm_pauses.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace stackscope::agent {
namespace {

TEST(GcClock, CountsFinishedCollectionsAndTheOneRunning) {
  GcClock gc;
  EXPECT_FALSE(gc.active());
  EXPECT_EQ(gc.timeNsUntil(1000), 0);
  gc.onStart(100);
  EXPECT_TRUE(gc.active());
  EXPECT_EQ(gc.timeNsUntil(150), 50);  // still running: up to now
  gc.onFinish(180);
  EXPECT_FALSE(gc.active());
  EXPECT_EQ(gc.count(), 1u);
  EXPECT_EQ(gc.timeNs(), 80u);
  EXPECT_EQ(gc.timeNsUntil(5000), 80);
  gc.onStart(1000);
  gc.onFinish(1010);
  EXPECT_EQ(gc.timeNsUntil(5000), 90);
  EXPECT_EQ(gc.count(), 2u);
}

// A tick due inside a collection is a gc tick even when the sampler wakes after its end: the
// last finished collection still tells, a running one from its start, and nothing else does.
TEST(GcClock, TellsWhetherAPastMomentFellInACollection) {
  GcClock gc;
  EXPECT_FALSE(gc.activeAt(50));
  gc.onStart(100);
  EXPECT_FALSE(gc.activeAt(99));
  EXPECT_TRUE(gc.activeAt(100));
  EXPECT_TRUE(gc.activeAt(150));
  gc.onFinish(180);
  EXPECT_TRUE(gc.activeAt(150));   // woken at 200, due at 150: in it
  EXPECT_FALSE(gc.activeAt(180));  // its end
  EXPECT_FALSE(gc.activeAt(90));   // before it
  gc.onStart(1000);
  EXPECT_TRUE(gc.activeAt(1005));
  EXPECT_TRUE(gc.activeAt(150));   // still the last finished one
  EXPECT_FALSE(gc.activeAt(500));  // between the two
  gc.onFinish(1010);
  EXPECT_FALSE(gc.activeAt(150));  // only the last finished one is kept
  EXPECT_TRUE(gc.activeAt(1009));
}

// A PerfData block: the prologue, then one entry per counter (name, then an 8-byte value).
class FakePerfData {
 public:
  void add(const std::string& name, int64_t value) { counters_.push_back({name, value}); }

  // Lays the block out; `corrupt_length` gives the second entry that length.
  std::vector<int64_t> build(int32_t corrupt_length = 0) const {
    std::vector<char> bytes(32, 0);
    int32_t index = 0;
    for (const auto& [name, value] : counters_) {
      const size_t start = bytes.size();
      const int32_t name_offset = 24;
      const int32_t data_offset = static_cast<int32_t>((name_offset + name.size() + 1 + 7) / 8 * 8);
      const int32_t length = data_offset + 8;
      bytes.resize(start + static_cast<size_t>(length), 0);
      const int32_t header[3] = {index == 1 && corrupt_length ? corrupt_length : length, name_offset, 0};
      std::memcpy(&bytes[start], header, sizeof header);
      bytes[start + 12] = 'J';
      std::memcpy(&bytes[start + 16], &data_offset, 4);
      std::memcpy(&bytes[start + static_cast<size_t>(name_offset)], name.c_str(), name.size() + 1);
      std::memcpy(&bytes[start + static_cast<size_t>(data_offset)], &value, 8);
      ++index;
    }
    const int32_t prologue[8] = {static_cast<int32_t>(0xc0c0feca), 0x01000201, static_cast<int32_t>(bytes.size()), 0, 0, 0,
                                 32, static_cast<int32_t>(counters_.size())};
    std::memcpy(bytes.data(), prologue, sizeof prologue);
    std::vector<int64_t> aligned((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    return aligned;
  }

 private:
  std::vector<std::pair<std::string, int64_t>> counters_;
};

// The value slot of `name` in a built block, to change it as the VM would.
int64_t* valueOf(std::vector<int64_t>& block, const std::string& name) {
  char* bytes = reinterpret_cast<char*>(block.data());
  for (size_t at = 32; at + name.size() < block.size() * 8; ++at) {
    if (std::memcmp(bytes + at, name.c_str(), name.size() + 1) == 0) {
      size_t data = (at + name.size() + 1 + 7) / 8 * 8;
      return reinterpret_cast<int64_t*>(bytes + data);
    }
  }
  return nullptr;
}

FakePerfData hotspotCounters() {
  FakePerfData perf;
  perf.add("sun.rt.createVmBeginTime", 7);
  perf.add("sun.rt.safepointSyncTime", 1000);
  perf.add("sun.rt.safepoints", 3);
  perf.add("sun.rt.safepointTime", 50'000);
  return perf;
}

TEST(SafepointCounters, ReadsTheLiveCounters) {
  std::vector<int64_t> block = hotspotCounters().build();
  SafepointCounters counters;
  ASSERT_TRUE(counters.bind(reinterpret_cast<const char*>(block.data()), block.size() * 8));
  EXPECT_EQ(counters.begun(), 3u);
  EXPECT_EQ(counters.stoppedNs(), 51'000);  // reaching the threads plus the operation
  const int64_t end_before = counters.endMark();
  *valueOf(block, "sun.rt.safepoints") = 4;   // one begins...
  *valueOf(block, "sun.rt.safepointSyncTime") = 1500;
  EXPECT_EQ(counters.begun(), 4u);
  EXPECT_EQ(counters.endMark(), end_before);  // ... has not ended
  *valueOf(block, "sun.rt.safepointTime") = 60'000;
  EXPECT_NE(counters.endMark(), end_before);
  EXPECT_EQ(counters.stoppedNs(), 61'500);
}

TEST(SafepointCounters, TicksOfAnotherRateBecomeNanoseconds) {
  FakePerfData perf = hotspotCounters();
  perf.add("sun.os.hrt.frequency", 2'000'000'000);
  std::vector<int64_t> block = perf.build();
  SafepointCounters counters;
  ASSERT_TRUE(counters.bind(reinterpret_cast<const char*>(block.data()), block.size() * 8));
  EXPECT_EQ(counters.stoppedNs(), 25'500);
}

TEST(SafepointCounters, MissingOrDamagedBlockBindsNothing) {
  SafepointCounters counters;
  EXPECT_FALSE(counters.bind(nullptr, 4096));
  FakePerfData partial;
  partial.add("sun.rt.safepoints", 3);
  std::vector<int64_t> block = partial.build();
  EXPECT_FALSE(counters.bind(reinterpret_cast<const char*>(block.data()), block.size() * 8));
  for (int32_t bad_length : {-8, 1 << 30}) {
    std::vector<int64_t> damaged = hotspotCounters().build(bad_length);
    EXPECT_FALSE(counters.bind(reinterpret_cast<const char*>(damaged.data()), damaged.size() * 8)) << bad_length;
  }
  // A block cut short finds nothing beyond its end.
  std::vector<int64_t> whole = hotspotCounters().build();
  EXPECT_FALSE(counters.bind(reinterpret_cast<const char*>(whole.data()), 64));
  EXPECT_FALSE(counters.bound());
  EXPECT_EQ(counters.begun(), 0u);
  EXPECT_EQ(counters.stoppedNs(), 0);
}

TEST(StoppedTicks, SplitsLateTicksBetweenGcAndOtherSafepoints) {
  constexpr int64_t kMs = 1'000'000;
  // 12 ticks missed: 5 ms of GC within 8 ms stopped; the rest the sampler's own lateness.
  StoppedTicks split = stoppedTicks(12, 5 * kMs, 8 * kMs, kMs);
  EXPECT_EQ(split.gc, 5u);
  EXPECT_EQ(split.safepoint, 3u);
  // Never more than the ticks missed, GC first.
  split = stoppedTicks(4, 5 * kMs, 8 * kMs, kMs);
  EXPECT_EQ(split.gc, 4u);
  EXPECT_EQ(split.safepoint, 0u);
  // To the nearest tick.
  split = stoppedTicks(10, 2'400'000, 2'400'000 + 1'600'000, kMs);
  EXPECT_EQ(split.gc, 2u);
  EXPECT_EQ(split.safepoint, 2u);
  // Safepoint counters that have not counted the GC's pause yet: no negative share.
  split = stoppedTicks(10, 6 * kMs, 0, kMs);
  EXPECT_EQ(split.gc, 6u);
  EXPECT_EQ(split.safepoint, 0u);
  // A tick that found the GC running gave it one already: 5 ms of GC are 4 more.
  split = stoppedTicks(12, 5 * kMs, 8 * kMs, kMs, 1);
  EXPECT_EQ(split.gc, 4u);
  EXPECT_EQ(split.safepoint, 3u);
  split = stoppedTicks(12, 400'000, 400'000, kMs, 1);
  EXPECT_EQ(split.gc, 0u);
  // No pause: nothing.
  split = stoppedTicks(7, 0, 0, kMs);
  EXPECT_EQ(split.gc + split.safepoint, 0u);
}

TEST(StoppedByPause, OnlyThreadsThatWouldHaveRun) {
  using format::ThreadState;
  for (ThreadState s : {ThreadState::Running, ThreadState::Idle, ThreadState::Unknown}) {
    EXPECT_TRUE(stoppedByPause(static_cast<uint8_t>(s))) << format::threadStateName(s);
  }
  for (ThreadState s : {ThreadState::Sleeping, ThreadState::Waiting, ThreadState::TimedWaiting, ThreadState::Parked,
                        ThreadState::Blocked, ThreadState::Native}) {
    EXPECT_FALSE(stoppedByPause(static_cast<uint8_t>(s))) << format::threadStateName(s);
  }
}

}  // namespace
}  // namespace stackscope::agent

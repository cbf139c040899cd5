// The lock trace of virtual threads (JDK 21+, VirtualLockWaits): virtual threads blocked on a
// monitor and on a fair ReentrantLock that the main thread holds a known time, each wait
// timed by the program. A virtual thread's park does not go through Unsafe.park, and JDK 24+
// unmounts it off a monitor, so these waits are the virtual threads' own (virtual_waits.h).
#include <algorithm>

#include "harness.h"

namespace it {
namespace {

constexpr int kRounds = 10;
constexpr int kWaiters = 4;   // per lock and round, each a new virtual thread
constexpr int kHoldMs = 20;   // every wait lasts at least this: far above the 1 ms threshold
const std::string kWorkload = kWorkloads + "VirtualLockWaits";
const std::string kMonitor = kWorkload + "$Monitor";
const std::string kFairLock = "java.util.concurrent.locks.ReentrantLock$FairSync";
const std::string kLatch = "java.util.concurrent.CountDownLatch$Sync";

class VirtualLockWaits : public RecordingTest {
 protected:
  // The names of the threads that waited for lock class `cls` (events of `event`).
  static std::vector<std::string> waiters(const std::string& path, const std::string& cls, const std::string& event) {
    const json view = report(path, {"--view", "locks[" + cls + "]/threads", "--event", event, "--top", "0"});
    std::vector<std::string> names;
    for (const json& t : view.at("threads")) names.push_back(t.at("name"));
    return names;
  }
};

// Each wait the program timed is one lock event of its lock, whose summed time agrees with the
// program's clock within 10 % (the trace's clock has 65.5 µs steps, and starts a park's wait at
// the unmount, a little after the program's clock read), of the virtual thread that waited
// (a record flagged virtual, named <virtual #id>), with a stack in the method that waited. The
// latch the waiters count down is waited for by a virtual thread and the main thread each
// round: waits, not locks.
TEST_F(VirtualLockWaits, VirtualThreadsWaitingForMonitorsAndLocksAreRecorded) {
  const std::string path = file("vlock.ssr");
  const ProcessResult rec = record({"-e", "lock"}, path, "VirtualLockWaits",
                                   {std::to_string(kRounds), std::to_string(kWaiters), std::to_string(kHoldMs), "1"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  if (rec.out.find("no virtual threads") != std::string::npos) {
    GTEST_SKIP() << "this JDK has no virtual threads (JDK 21+ needed)";
  }
  EXPECT_EQ(rec.err.find("warning"), std::string::npos) << rec.err;
  const auto t = truth(rec.out);
  // By construction every waiter waits the hold at least: the program timed them all.
  ASSERT_EQ(t.at("monitor_waits"), kRounds * kWaiters) << rec.out;
  ASSERT_EQ(t.at("reentrant_waits"), kRounds * kWaiters) << rec.out;

  const json locks = report(path, {"--view", "locks", "--top", "0"});
  const json* monitor = find(locks, "locks", "value", kMonitor);
  ASSERT_NE(monitor, nullptr) << locks.dump(1);
  // One contended enter per waiter, however often it is mounted to try again.
  EXPECT_EQ(monitor->at("events"), t.at("monitor_waits")) << locks.dump(1);
  expectWithin(monitor->at("time").get<double>(), t.at("monitor_ns"), 0.10, "monitor waits");
  EXPECT_GE(monitor->at("max").get<double>(), kHoldMs * 1e6 * 0.9) << locks.dump(1);
  const json* fair = find(locks, "locks", "value", kFairLock);
  ASSERT_NE(fair, nullptr) << locks.dump(1);
  // A fair lock wakes the waiter that gets it: one park each (10 % for a spurious wake-up).
  expectWithin(fair->at("events").get<double>(), t.at("reentrant_waits"), 0.10, "ReentrantLock waits counted");
  expectWithin(fair->at("time").get<double>(), t.at("reentrant_ns"), 0.10, "ReentrantLock waits");
  EXPECT_EQ(find(locks, "locks", "value", kLatch), nullptr) << "a latch is waited for, not locked: " << locks.dump(1);

  // The waiters are the virtual threads, every one of them.
  for (const std::string& cls : {kMonitor, kFairLock}) {
    const std::vector<std::string> names = waiters(path, cls, "lock");
    EXPECT_EQ(names.size(), static_cast<size_t>(kRounds * kWaiters)) << cls;
    for (const std::string& name : names) EXPECT_EQ(name.rfind("<virtual #", 0), 0u) << cls << ": " << name;
  }
  const json vthreads = report(path, {"--view", "vthreads", "--event", "lock"});
  EXPECT_EQ(vthreads.at("virtual_threads"), 2 * kRounds * kWaiters) << vthreads.dump(1);
  EXPECT_EQ(vthreads.at("virtual_time"), vthreads.at("total")) << "every lock wait is a virtual thread's";

  // Their stacks: in the method that waited.
  const json methods = report(path, {"--event", "lock", "--metric", "time", "--top", "0"});
  for (const auto& [method, ns] : {std::pair{".enterMonitor", "monitor_ns"}, std::pair{".enterReentrant", "reentrant_ns"}}) {
    const json* row = find(methods, "methods", "method", kWorkload + method);
    ASSERT_NE(row, nullptr) << method << ": " << methods.dump(1);
    expectWithin(row->at("total").get<double>(), t.at(ns), 0.10, std::string(method) + "'s total");
  }

  // The latch: waits, by the main thread (each await lasts the waiters' four 1 ms holds at
  // least) and by the virtual watchers (the hold and more).
  const json waits = report(path, {"--view", "locks", "--event", "wait", "--top", "0"});
  ASSERT_NE(find(waits, "locks", "value", kLatch), nullptr) << waits.dump(1);
  const std::vector<std::string> latch_waiters = waiters(path, kLatch, "wait");
  EXPECT_NE(std::find(latch_waiters.begin(), latch_waiters.end(), "main"), latch_waiters.end());
  EXPECT_TRUE(std::any_of(latch_waiters.begin(), latch_waiters.end(),
                          [](const std::string& name) { return name.rfind("<virtual #", 0) == 0; }));
}

}  // namespace
}  // namespace it

// The writer thread's sleep (agent/writer_pacing.h) on real JVMs: in a session that samples
// nothing, while nothing comes it sleeps up to a second, where it woke every 20 ms before; a
// burst after such a quiet spell wakes it, so nothing is dropped.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "harness.h"
#include "process.h"

namespace it {
namespace {

class WriterPacing : public RecordingTest {};

// The voluntary context switches of `pid`'s thread named `name`: one per sleep it ended.
long voluntarySwitches(pid_t pid, const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::string comm;
    std::getline(std::ifstream(task.path() / "comm"), comm);
    if (comm != name) continue;
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stol(line.substr(line.find(':') + 1));
  }
  return -1;
}

// Sleeper's main burns 4 s of CPU while its three threads idle (in a sleep, a monitor enter
// and Object.wait): with the gc trace alone, or the lock trace whose two long waits are
// looked at once, nothing comes for the writer. Over 2 s it wakes for the status and flush
// of each second, at most a few times more; at 20 ms it would be 100.
void expectFewWakes(const std::string& events, const std::string& path) {
  Child jvm(javaCommand("Sleeper", {"4000"}, {"-agentpath:" + agentPath() + "=event=" + events + ",file=" + path}));
  ASSERT_TRUE(jvm.waitForStdout("thread main", std::chrono::seconds(60)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the sleep grows to a second by then
  const long before = voluntarySwitches(jvm.pid(), "stackscope-writ");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long after = voluntarySwitches(jvm.pid(), "stackscope-writ");
  ASSERT_GE(before, 0) << "no writer thread";
  EXPECT_LE(after - before, 10) << events;
  EXPECT_GE(after - before, 1) << events << ": a second's status was due";
  const ProcessResult result = jvm.wait(std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

TEST_F(WriterPacing, AQuietRecordingWakesItsWriterAboutOnceASecond) {
  expectFewWakes("gc", file("gc.ssr"));
  expectFewWakes("lock", file("lock.ssr"));
}

// LockContention's two threads wait for two locks in turn all the time, at a few stacks:
// events whose stacks the writer named before, and waits that may want an owner look while the
// short waits' look budget has none. The writer then drains them at its own pace and looks
// within LockOwners::kLookGapNs (sooner after a look that saw a wait of 10 ms or more): 15-18
// wakes in 2 s measured, two such JVMs at once included; draining them every 20 ms, as it did
// before, was 100. (Four threads' waits pass 10 ms often enough on a loaded machine to bring
// it back near 20 ms now and then: not the case this test is about.)
TEST_F(WriterPacing, SteadyLockWaitsLetTheWriterSleep) {
  Child jvm(javaCommand("LockContention", {"2", "3500000"},
                        {"-agentpath:" + agentPath() + "=event=lock,file=" + file("steady.ssr")}));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // started, and the first looks' burst spent
  const long before = voluntarySwitches(jvm.pid(), "stackscope-writ");
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long after = voluntarySwitches(jvm.pid(), "stackscope-writ");
  ASSERT_GE(before, 0) << "no writer thread";
  EXPECT_LE(after - before, 50);
  const ProcessResult result = jvm.wait(std::chrono::seconds(120));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json locks = report(file("steady.ssr"), {"--event", "lock", "--view", "locks"});
  EXPECT_NE(find(locks, "locks", "value", "java.lang.Object"), nullptr) << locks.dump(1);
}

// Throws sleeps 3 s, then throws 450 000 exceptions within about half a second: at 1 s
// sleeps the queue (65 536) would overflow many times (384 464 dropped in a trial build
// without the wake); the first exception wakes the writer, whose drains then find events and
// so come every 20 ms, and every one is recorded.
TEST_F(WriterPacing, ABurstAfterAQuietSpellIsRecordedWhole) {
  ProcessResult rec = record({"-e", "exception"}, file("burst.ssr"), "Throws", {"300000", "0", "3000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.err.find("not recorded"), std::string::npos) << rec.err;
  const json classes = report(file("burst.ssr"), {"--view", "exceptions"});
  const std::string metric = classes.at("metric");
  const json* state = find(classes, "exceptions", "value", "java.lang.IllegalStateException");
  const json* argument = find(classes, "exceptions", "value", "java.lang.IllegalArgumentException");
  ASSERT_TRUE(state && argument) << classes.dump(1);
  EXPECT_EQ(state->at(metric), 300000u);
  EXPECT_EQ(argument->at(metric), 150000u);
}

}  // namespace
}  // namespace it

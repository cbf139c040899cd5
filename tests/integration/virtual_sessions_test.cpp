// Virtual threads across two sessions in one JVM (JDK 21+, VirtualSessions workload): a
// virtual thread keeps its id in its JVMTI thread-local storage, which outlives a session,
// while each session numbers threads from 1. The second recording must give the virtual
// threads that lived through the first ids of its own, with their records and names, never
// another thread's (virtual_state.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "control_fixture.h"

namespace it {
namespace {

constexpr auto kWait = kControlWait;
const std::string kSessions = kWorkloads + "VirtualSessions.";

using VirtualSessions = ControlTest;

// The names of the threads whose samples have `method` on the stack. The virtual threads are
// told apart by their spin methods, on top of their stacks (their walks may end below them);
// the platform threads by their run method (the JIT may fold their spins into the lambda).
std::vector<std::string> threadsRunning(const std::string& path, const std::string& method) {
  const json view = report(path, {"--view", "methods[" + method + "]/threads", "--top", "0"});
  std::vector<std::string> names;
  for (const json& t : view.at("threads")) names.push_back(t.at("name"));
  return names;
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Every thread that ran `method` in `path` is one of the threads named `prefix`N, or a carrier
// sampled before the session saw its virtual thread's mount (one mounted when the session
// began): its samples of that virtual thread stay the carrier's. At least one is.
void expectRunBy(const std::string& path, const std::string& method, const std::string& prefix) {
  const std::vector<std::string> names = threadsRunning(path, kSessions + method);
  EXPECT_TRUE(std::any_of(names.begin(), names.end(), [&](const std::string& n) { return startsWith(n, prefix); }))
      << path << ": no " << prefix << "* thread ran " << method;
  for (const std::string& name : names) {
    EXPECT_TRUE(startsWith(name, prefix) || startsWith(name, "ForkJoinPool-1-worker-"))
        << path << ": " << method << " was run by '" << name << "'";
  }
}

// Each virtual thread named in `path`'s threads view has one row: one id, one record.
void expectOneRowEach(const std::string& path) {
  const json threads = report(path, {"--view", "threads", "--top", "0"});
  std::set<std::string> seen;
  for (const json& t : threads.at("threads")) {
    const std::string name = t.at("name");
    if (startsWith(name, "old-") || startsWith(name, "new-")) {
      EXPECT_TRUE(seen.insert(name).second) << path << ": two rows named " << name;
    }
  }
}

// The first session starts with the JVM (every carrier is known to it), with the lock trace
// on, so that the old virtual threads leave words noting a park (their sleeps) as well as
// words without a wait. The second, started over control, sees the old threads on carriers
// the pool starts for a burst of new virtual threads (a parallelism of 16: the first session's
// few virtual threads leave most of those carriers to start in the second).
TEST_F(VirtualSessions, ASecondSessionGivesVirtualThreadsOfTheFirstIdsOfItsOwn) {
  const std::string first = file("first.ssr");
  const std::string second = file("second.ssr");
  const std::filesystem::path dir = std::filesystem::path(first).parent_path();
  Child jvm(javaCommand("VirtualSessions", {dir.string(), "3", "16"},
                        {"-Djdk.virtualThreadScheduler.parallelism=16",
                         // The spin methods stay frames of their own, on top of every stack that runs them.
                         "-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,*VirtualSessions.*Spin",
                         "-agentpath:" + agentPath() + "=event=wall,lock,interval=2ms,control=0,file=" + first}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait) || jvm.waitForStdout("no virtual threads", kWait));
  const auto touch = [&](const char* name) { std::ofstream(dir / name) << ""; };
  if (jvm.waitForStdout("no virtual threads", std::chrono::milliseconds(0))) {
    touch("stop");
    jvm.wait(kWait);
    GTEST_SKIP() << "this JDK has no virtual threads (JDK 21+ needed)";
  }
  connect(jvm.pid());
  waitForMoreSamples(300);
  EXPECT_TRUE(request({{"cmd", "stop"}}).value("ok", false));

  EXPECT_TRUE(request({{"cmd", "start"}, {"options", "event=wall,lock,interval=2ms,file=" + second}}).value("ok", false));
  touch("burst");
  ASSERT_TRUE(jvm.waitForStdout("burst", kWait));
  waitForMoreSamples(10000);  // about a second: each old thread mounts hundreds of times
  EXPECT_TRUE(request({{"cmd", "stop"}}).value("ok", false));
  touch("stop");
  ProcessResult finished = jvm.wait(kWait * 2);
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_NE(finished.out.find("done"), std::string::npos) << finished.out;
  EXPECT_EQ(finished.err.find("not recorded"), std::string::npos) << finished.err;

  // The first session: the old virtual threads under their names.
  expectRunBy(first, "oldSpin", "old-");
  expectRunBy(first, "platformWork", "platform-");
  expectOneRowEach(first);
  // The second: the old ones under their names again, not under an id of the first session,
  // which here names another thread or none; the new ones and the platform threads apart.
  expectRunBy(second, "oldSpin", "old-");
  expectRunBy(second, "newSpin", "new-");
  expectRunBy(second, "platformWork", "platform-");
  expectOneRowEach(second);
  const json vthreads = report(second, {"--view", "vthreads"});
  EXPECT_GE(vthreads.at("virtual_threads").get<int>(), 2) << vthreads.dump(1);
  EXPECT_LE(vthreads.at("virtual_threads").get<int>(), 3 + 16) << vthreads.dump(1);
}

}  // namespace
}  // namespace it

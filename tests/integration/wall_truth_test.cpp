// Wall mode tells the truth about JVM threads (ThreadTruth workload): each thread in its own
// state, the JVM's idle threads not "running", every thread with its real OS tid, a renamed
// thread one row with both names, and the launcher's thread after main() returns (it waits
// in DestroyJavaVM, no Java frame) one row with main, idle, not running.
#include <sstream>

#include "harness.h"

namespace it {
namespace {

constexpr char kRunMs[] = "2000";
constexpr char kLingerMs[] = "1000";

class WallTruth : public RecordingTest {
 protected:
  void SetUp() override {
    RecordingTest::SetUp();
    rec_ = record({"-e", "wall", "-i", "1ms"}, file("wall.ssr"), "ThreadTruth", {kRunMs, kLingerMs});
    ASSERT_EQ(rec_.exit_code, 0) << rec_.err;
    threads_ = report(file("wall.ssr"), {"--view", "threads"});
  }

  const json& thread(const std::string& name) {
    const json* t = find(threads_, "threads", "name", name);
    if (!t) throw std::runtime_error(name + " missing: " + threads_.dump(1));
    return *t;
  }
  static double state(const json& t, const std::string& name) { return t.at("states").value(name, 0.0); }

  ProcessResult rec_;
  json threads_;
};

TEST_F(WallTruth, EachThreadInItsOwnState) {
  const std::map<std::string, std::string> expected = {
      {"parked", "parked"}, {"waiter", "waiting"}, {"sleeper", "sleeping"}, {"spinner", "running"}};
  for (const auto& [name, want] : expected) {
    const json& t = thread(name);
    const double samples = t.at("samples").get<double>();
    // About 2 s at 1 ms; a busy machine may stretch or starve it, so only a floor.
    EXPECT_GE(samples, 1000) << t.dump();
    EXPECT_GE(state(t, want), 0.9 * samples) << name << ": " << t.dump();
  }
  // All four live through the same interval. The idle ones are looked at ever less often
  // (every 64 ms at most) and their samples weigh the ticks between looks: the weights must
  // add up to as many samples as the thread signalled every tick.
  const double spinner = thread("spinner").at("samples").get<double>();
  for (const char* name : {"parked", "waiter", "sleeper"}) {
    EXPECT_NEAR(thread(name).at("samples").get<double>(), spinner, 0.1 * spinner) << name;
  }
}

TEST_F(WallTruth, IdleJvmThreadsAreNotRunning) {
  for (const char* name : {"Reference Handler", "Finalizer", "Signal Dispatcher"}) {
    const json& t = thread(name);
    const double samples = t.at("samples").get<double>();
    EXPECT_GE(samples, 1000) << t.dump();
    EXPECT_LE(state(t, "running"), 0.1 * samples) << name << ": " << t.dump();
  }
}

TEST_F(WallTruth, JvmThreadsHaveTheirRealOsTid) {
  // jcmd Thread.print's nid, as the workload printed it, is HotSpot's own word for the tid.
  std::istringstream lines(rec_.out);
  int checked = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("nid ", 0) != 0) continue;
    const size_t last = line.rfind(' ');
    const std::string name = line.substr(4, last - 4);
    const int64_t nid = std::stoll(line.substr(last + 1));
    ASSERT_GT(nid, 0) << line;
    EXPECT_EQ(thread(name).at("os_tid").get<int64_t>(), nid) << name;
    ++checked;
  }
  EXPECT_EQ(checked, 3) << rec_.out;
}

TEST_F(WallTruth, RenamedThreadIsOneRowWithBothNames) {
  const json& t = thread("after-rename");
  EXPECT_EQ(t.at("names"), json({"before-rename", "after-rename"})) << t.dump();
  EXPECT_EQ(find(threads_, "threads", "name", "before-rename"), nullptr) << threads_.dump(1);
  EXPECT_GE(state(t, "sleeping"), 0.9 * t.at("samples").get<double>()) << t.dump();
}

TEST_F(WallTruth, MainAfterItReturnsIsOneRowAndNotRunning) {
  // Shown as main: the launcher's DestroyJavaVM is not a rename by the program.
  const json& t = thread("main");
  EXPECT_EQ(t.at("names"), json({"main", "DestroyJavaVM"})) << t.dump();
  EXPECT_EQ(find(threads_, "threads", "name", "DestroyJavaVM"), nullptr) << threads_.dump(1);
  // main sleeps through the run, then waits for the lingerer in DestroyJavaVM: running only
  // for its bits of work (starting the JVM's classes, reading jcmd's answer).
  const double samples = t.at("samples").get<double>();
  EXPECT_LE(state(t, "running"), 0.15 * samples) << t.dump();
  // While the lingerer sleeps, the launcher's thread waits for it, idle: about as many idle
  // samples as the lingerer has (both sampled by the same ticks, whatever the machine's load).
  const json& lingerer = thread("lingerer");
  EXPECT_GT(truth(rec_.out).at("linger"), 0.9e9);
  EXPECT_GE(state(t, "idle"), 0.8 * lingerer.at("samples").get<double>()) << t.dump() << lingerer.dump();
}

}  // namespace
}  // namespace it

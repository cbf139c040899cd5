// Sleeper: main burns CPU while "sleeper" sleeps, "blocked" waits to enter a monitor main
// holds and "waiter" waits in Object.wait(). cpu mode must not see the idle threads; wall
// mode must see each, nearly always in its own state, and every other live thread too.
#include <sstream>

#include "harness.h"

namespace it {
namespace {

const char* const kIdleThreads[] = {"sleeper", "blocked", "waiter"};

// The launcher's thread: named main, then DestroyJavaVM once main() returned (one row shown
// as main, every name in `names`).
const json* mainThread(const json& threads) {
  for (const json& t : threads.at("threads")) {
    for (const json& name : t.at("names")) {
      if (name == "main") return &t;
    }
  }
  return nullptr;
}

class ThreadStates : public RecordingTest {};

TEST_F(ThreadStates, CpuModeLeavesOutThreadsThatUseNoCpu) {
  ProcessResult rec = record({"-e", "cpu"}, file("cpu.ssr"), "Sleeper");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;

  json threads = report(file("cpu.ssr"), {"--view", "threads"});
  const json* main = mainThread(threads);
  ASSERT_NE(main, nullptr) << threads.dump(1);
  EXPECT_GE(main->at("pct").get<double>(), 90.0);
  for (const char* name : kIdleThreads) {
    if (const json* idle = find(threads, "threads", "name", name)) {
      EXPECT_EQ(idle->at("samples").get<double>(), 0) << idle->dump();
    }
  }

  json methods = report(file("cpu.ssr"));
  for (const json& m : methods.at("methods")) {
    EXPECT_EQ(m.at("method").get<std::string>().find("java.lang.Thread.sleep"),
              std::string::npos)
        << "a sleeping thread was sampled in cpu mode: " << m.dump();
  }
}

TEST_F(ThreadStates, WallModeShowsEveryThreadWithItsState) {
  ProcessResult rec = record({"-e", "wall"}, file("wall.ssr"), "Sleeper");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;

  json threads = report(file("wall.ssr"), {"--view", "threads"});
  const json* main = mainThread(threads);
  ASSERT_NE(main, nullptr) << threads.dump(1);
  double main_running = main->at("states").value("running", 0.0);
  EXPECT_GE(main_running, 0.8 * main->at("samples").get<double>()) << main->dump();

  const std::map<std::string, std::string> expected = {
      {"sleeper", "sleeping"}, {"blocked", "blocked"}, {"waiter", "waiting"}};
  for (const auto& [name, state] : expected) {
    const json* t = find(threads, "threads", "name", name);
    ASSERT_NE(t, nullptr) << name << " missing in wall mode: " << threads.dump(1);
    double samples = t->at("samples").get<double>();
    // Idle for as long as main burns, so sampled about as often as main was seen running.
    EXPECT_GE(samples, 0.8 * main_running) << t->dump();
    EXPECT_GE(t->at("states").value(state, 0.0), 0.9 * samples) << t->dump();
  }

  // Every thread alive while main burned, as Java listed them (the JVM's own threads,
  // started before the agent's VMInit, among them), is sampled all along.
  std::istringstream lines(rec.out);
  int listed = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("thread ", 0) != 0) continue;
    ++listed;
    const json* t = line == "thread main" ? mainThread(threads) : find(threads, "threads", "name", line.substr(7));
    if (t == nullptr) {
      ADD_FAILURE() << line.substr(7) << " never sampled in wall mode";
    } else {
      EXPECT_GE(t->at("samples").get<double>(), 0.8 * main_running) << t->dump();
    }
  }
  EXPECT_GE(listed, 5) << rec.out;

  // A thread whose sample cannot be taken is counted as lost; that must stay rare.
  double lost = threads.at("lost_total").get<double>();
  EXPECT_LE(lost, 0.05 * (threads.at("samples").get<double>() + lost))
      << threads.at("lost").dump();
}

}  // namespace
}  // namespace it

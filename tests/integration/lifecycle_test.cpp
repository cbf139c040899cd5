// How a profiled JVM comes and goes: many threads born and dying, System.exit from a thread,
// an uncaught exception in main, and kill -9. The first three must leave a finished file
// (a report with no warnings); kill -9 must leave every flushed sample readable.
#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

#include "harness.h"

namespace it {
namespace {

class Lifecycle : public RecordingTest {
 protected:
  // A finished recording says so, has its index of chunks and reads without any warning
  // (no torn tail).
  void expectFinished(const std::string& path, double min_samples) {
    json methods = report(path);
    EXPECT_EQ(methods.at("finished"), true) << path;
    EXPECT_EQ(methods.at("warnings"), json::array()) << path;
    EXPECT_GE(methods.at("samples").get<double>(), min_samples) << path;
    EXPECT_EQ(query({"info", path}).at("indexed"), true) << path;
  }
};

// Counts the threads named worker-N in a threads view and adds up their samples.
std::pair<int, double> workerSamples(const json& threads) {
  int workers = 0;
  double samples = 0;
  for (const json& t : threads.at("threads")) {
    if (t.value("name", "").rfind("worker-", 0) != 0) continue;
    ++workers;
    samples += t.at("samples").get<double>();
  }
  return {workers, samples};
}

TEST_F(Lifecycle, ManyShortLivedThreadsInCpuMode) {
  // At 1 ms each worker's CPU timer is due to fire during its life, not only be set up and
  // torn down.
  ProcessResult rec = record({"-e", "cpu", "-i", "1ms"}, file("cpu.ssr"), "ManyThreads");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.out.find("threads 2000"), std::string::npos) << rec.out;
  expectFinished(file("cpu.ssr"), 0);

  // 2000 workers burn 1 ms of CPU each: 2000 samples due in them.
  auto [workers, samples] = workerSamples(report(file("cpu.ssr"), {"--view", "threads"}));
  EXPECT_GE(samples, 0.9 * 2000);
  EXPECT_GE(workers, 1000);
}

TEST_F(Lifecycle, ManyShortLivedThreadsInWallMode) {
  ProcessResult rec = record({"-e", "wall"}, file("wall.ssr"), "ManyThreads");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.out.find("threads 2000"), std::string::npos) << rec.out;
  expectFinished(file("wall.ssr"), 50);

  // About 8 workers are alive at every wall tick, each for a few ms: many must be named.
  EXPECT_GE(workerSamples(report(file("wall.ssr"), {"--view", "threads"})).first, 100);
}

TEST_F(Lifecycle, SystemExitFromAThreadPassesItsCodeAndFinishesTheFile) {
  ProcessResult rec = record({"-e", "cpu"}, file("exit.ssr"), "SystemExit", {"exit"});
  EXPECT_EQ(rec.exit_code, 3) << rec.err;
  // exiter burned 1 s while main burned alongside it.
  expectFinished(file("exit.ssr"), 100);
  json threads = report(file("exit.ssr"), {"--view", "threads"});
  EXPECT_NE(find(threads, "threads", "name", "exiter"), nullptr) << threads.dump(1);
}

TEST_F(Lifecycle, UncaughtExceptionInMainExitsOneAndFinishesTheFile) {
  ProcessResult rec = record({"-e", "cpu"}, file("throw.ssr"), "SystemExit", {"throw"});
  EXPECT_EQ(rec.exit_code, 1);
  EXPECT_NE(rec.err.find("deliberate uncaught exception"), std::string::npos) << rec.err;
  expectFinished(file("throw.ssr"), 50);
}

TEST_F(Lifecycle, KillNineMidRecordingLeavesTheFlushedSamplesReadable) {
  // The JVM itself is started with the agent, so SIGKILL hits the process that writes.
  std::string path = file("killed.ssr");
  Child jvm(javaCommand("Spinner", {},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=10ms,file=" + path}));
  ASSERT_TRUE(jvm.waitForStdout("spinning", std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  kill(jvm.pid(), SIGKILL);
  ProcessResult killed = jvm.wait(std::chrono::seconds(30));
  ASSERT_EQ(killed.term_signal, SIGKILL) << killed.err;

  // Data is flushed at least every second, so the file holds over a second of spinning:
  // 100 samples at 10 ms on an idle core, fewer when tests run side by side.
  json methods = report(path);
  EXPECT_EQ(methods.at("finished"), false);
  EXPECT_GE(methods.at("samples").get<double>(), 30);
  EXPECT_NE(find(methods, "methods", "method", kWorkloads + "Spinner.main"), nullptr);
  const std::regex torn("torn|tail|truncat|index|incomplete", std::regex::icase);
  bool warned = false;
  for (const json& w : methods.at("warnings")) {
    warned = warned || std::regex_search(w.get<std::string>(), torn);
  }
  EXPECT_TRUE(warned) << "no torn-tail warning in " << methods.at("warnings").dump();

  json info = query({"info", path});
  EXPECT_EQ(info.at("finished"), false);
  EXPECT_EQ(info.at("indexed"), false);
}

}  // namespace
}  // namespace it

// Wall time the VM holds threads stopped is samples of those threads, not a loss: a
// GC-heavy loop (GcPauses) shows its collections as state gc, as long as the JVM's own
// GarbageCollectorMXBeans say they took; safepoints without a GC (SafepointPauses: thread
// dumps) show as state safepoint, as long as -Xlog:safepoint says they held the VM.
#include <fstream>
#include <regex>

#include "harness.h"

namespace it {
namespace {

constexpr int64_t kIntervalNs = 1'000'000;  // 1 ms: a pause of a few ms spans several ticks

class WallPauses : public RecordingTest {
 protected:
  // The workload with the agent in wall mode at 1 ms, and `jvm_options`.
  ProcessResult recordWall(const std::string& path, const std::string& main_class,
                           const std::vector<std::string>& args, std::vector<std::string> jvm_options) {
    jvm_options.push_back("-agentpath:" + agentPath() + "=event=wall,interval=1ms,file=" + path);
    return run(javaCommand(main_class, args, jvm_options));
  }

  static const json& thread(const json& threads, const std::string& name) {
    const json* t = find(threads, "threads", "name", name);
    if (!t) throw std::runtime_error(name + " missing: " + threads.dump(1));
    return *t;
  }
  static double state(const json& t, const std::string& name) { return t.at("states").value(name, 0.0); }
  static double lost(const json& view, const std::string& reason) { return view.at("lost").value(reason, 0.0); }
};

TEST_F(WallPauses, GcTimeIsGcSamplesOfTheAllocatingThread) {
  const std::string path = file("gc.ssr");
  // 4 s of allocation with a full collection every 200 ms and young ones in between: about
  // half a second of GC on this machine.
  ProcessResult rec = recordWall(path, "GcPauses", {"4000", "200"}, {"-Xmx64m"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  ASSERT_GT(t.at("collections"), 10) << rec.out;
  ASSERT_GT(t.at("gc"), 0) << rec.out;

  const json threads = report(path, {"--view", "threads"});
  const json& main = thread(threads, "DestroyJavaVM");  // main, renamed once it returned
  const double samples = main.at("samples").get<double>();
  // (a) No tick the pauses stopped is a loss: timer overruns only where the sampler itself
  // waited for a CPU (none seen on this machine; 1 % of the samples allowed).
  EXPECT_LE(lost(threads, "timer_overrun"), 0.01 * samples) << threads.at("lost").dump();
  EXPECT_LE(lost(threads, "gc_active"), 0.01 * samples) << threads.at("lost").dump();
  // (b) The main thread lives through the whole recording: its samples add up to it
  // (±10 %), and to at least its time in the loop.
  const double recorded_ns = threads.at("recording_duration_ns").get<double>();
  EXPECT_NEAR(samples * kIntervalNs, recorded_ns, 0.1 * recorded_ns) << main.dump();
  EXPECT_GE(samples * kIntervalNs, 0.9 * t.at("wall")) << main.dump();
  // (c) Its gc samples are the collections' time the JVM reports (measured within 4 % on
  // both JDKs; 20 % allowed, the MXBeans count whole milliseconds per collection).
  const double gc_ns = state(main, "gc") * kIntervalNs;
  EXPECT_NEAR(gc_ns, t.at("gc"), 0.2 * t.at("gc")) << main.dump() << rec.out;
  // A thread waiting in Object.wait is not stopped by a pause: it was waiting anyway.
  EXPECT_EQ(state(thread(threads, "Finalizer"), "gc"), 0) << threads.dump(1);
}

// The JVM's own account of its safepoints: -Xlog:safepoint's "Total: N ns" of each, by name.
std::map<std::string, double> safepointTotals(const std::string& log_path) {
  std::map<std::string, double> totals;
  std::ifstream log(log_path);
  const std::regex line(R"re(Safepoint "([^"]+)".*Total: ([0-9]+) ns)re");
  std::smatch m;
  for (std::string text; std::getline(log, text);) {
    if (std::regex_search(text, m, line)) totals[m[1]] += std::stod(m[2]);
  }
  return totals;
}

TEST_F(WallPauses, SafepointWithoutGcIsSafepointSamples) {
  const std::string path = file("sp.ssr");
  const std::string log = file("safepoints.log");
  ProcessResult rec = recordWall(path, "SafepointPauses", {"3000", "20"}, {"-Xlog:safepoint:file=" + log});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  const double dumps_ns = safepointTotals(log)["ThreadDump"];
  ASSERT_GT(dumps_ns, 0) << "no ThreadDump safepoint in " << log;

  const json threads = report(path, {"--view", "threads"});
  const json& spinner = thread(threads, "spinner");
  const double samples = spinner.at("samples").get<double>();
  EXPECT_LE(lost(threads, "timer_overrun"), 0.01 * samples) << threads.at("lost").dump();
  // Every tick of its life is a sample (±10 %)...
  EXPECT_NEAR(samples * kIntervalNs, t.at("spin"), 0.1 * t.at("spin")) << spinner.dump();
  // ... and the ticks the dumps held it stopped are in state safepoint: 66-93 % of the
  // JVM's figure measured on both JDKs (which counts the time to reach every thread, while
  // the spinner still runs), at least half asked for.
  const double safepoint_ns = state(spinner, "safepoint") * kIntervalNs;
  EXPECT_GE(safepoint_ns, 0.5 * dumps_ns) << spinner.dump() << " ThreadDump total " << dumps_ns;
  EXPECT_LE(safepoint_ns, 1.2 * dumps_ns) << spinner.dump() << " ThreadDump total " << dumps_ns;
  // A sleeping thread stays sleeping.
  EXPECT_EQ(state(thread(threads, "deep-0"), "safepoint"), 0) << threads.dump(1);
}

}  // namespace
}  // namespace it

// The per-thread metric deltas samples carry (record --metrics cpu,alloc), on real JVMs with known
// truth: threads burning known CPU and one allocating a known number of bytes (MetricTruth),
// each printing its own CPU clock and the JVM's count of its allocated bytes at its end. A
// thread's cpu-time (alloc-bytes) in the threads view is the sum of its samples' deltas: what
// it used between its start and its last sample, so at most one interval's worth below the
// truth.
#include "harness.h"

namespace it {
namespace {

class SampleMetrics : public RecordingTest {
 protected:
  // The threads view's value of thread `name`, 0 when absent.
  static double threadValue(const json& view, const std::string& name) {
    const json* row = find(view, "threads", "name", name);
    return row ? row->at(view.at("metric").get<std::string>()).get<double>() : 0.0;
  }
  static void expectWithin(double measured, double truth, double tolerance, const std::string& what) {
    EXPECT_NEAR(measured, truth, truth * tolerance) << what << ": measured " << measured << ", truth " << truth;
  }
  void checkTruth(const std::string& mode) {
    const std::string path = file(mode + ".ssr");
    ProcessResult rec = record({"-e", mode, "--metrics", "cpu,alloc"}, path, "MetricTruth", {"2000", "400"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const auto t = truth(rec.out);
    const json info = query({"info", path});
    EXPECT_EQ(info.at("recording").at("sample_metrics"), json::array({"cpu-time", "alloc-bytes"})) << info.dump(1);

    const json cpu = report(path, {"--view", "threads", "--metric", "cpu-time"});
    EXPECT_EQ(cpu.at("unit"), "ns");
    for (const std::string name : {"burn-60", "burn-30", "alloc"})
      expectWithin(threadValue(cpu, name), t.at("cpu." + name), 0.05, mode + " cpu-time of " + name);
    const json bytes = report(path, {"--view", "threads", "--metric", "alloc-bytes"});
    EXPECT_EQ(bytes.at("unit"), "bytes");
    expectWithin(threadValue(bytes, "alloc"), t.at("alloc.alloc"), 0.15, mode + " alloc-bytes of alloc");
    // The burners allocate next to nothing: far below the allocating thread.
    EXPECT_LT(threadValue(bytes, "burn-60"), t.at("alloc.alloc") / 100) << bytes.dump(1);

    // The same deltas in the method statistic: the allocation is the allocating method's.
    const json methods = report(path, {"--metric", "alloc-bytes", "--where", "thread=alloc", "--top", "0"});
    const json* allocate = find(methods, "methods", "method", kWorkloads + "MetricTruth.allocate");
    ASSERT_NE(allocate, nullptr) << methods.dump(1);
    expectWithin(allocate->at("total").get<double>(), t.at("alloc.alloc"), 0.15, mode + " allocate's total alloc-bytes");
  }
};

TEST_F(SampleMetrics, CpuModeDeltasMatchEachThreadsClockAndAllocation) { checkTruth("cpu"); }

// Wall mode samples every thread at the same rate, busy or not: the sleeper has as many
// samples as a burner, and next to no CPU time.
TEST_F(SampleMetrics, WallModeDeltasMatchEachThreadsClockAndAllocation) {
  checkTruth("wall");
  const json cpu = report(file("wall.ssr"), {"--view", "threads", "--metric", "cpu-time"});
  EXPECT_LT(threadValue(cpu, "sleeper"), 5e6) << cpu.dump(1);  // 5 ms
  const json samples = report(file("wall.ssr"), {"--view", "threads"});
  EXPECT_GT(threadValue(samples, "sleeper"), threadValue(samples, "burn-30") / 2) << samples.dump(1);
}

// Off by default: no deltas in the samples, and a report asked for one says so (exit 1).
TEST_F(SampleMetrics, MetricsOffRecordNoneAndTheReportSaysSo) {
  const std::string path = file("none.ssr");
  ProcessResult rec = record({}, path, "MetricTruth", {"300", "20"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(query({"info", path}).at("recording").at("sample_metrics"), json::array()) ;
  const ProcessResult asked = run({STACKSCOPE_BIN, "report", path, "--metric", "cpu-time"});
  EXPECT_EQ(asked.exit_code, 1) << asked.out;
  EXPECT_NE(asked.err.find("do not carry cpu-time"), std::string::npos) << asked.err;
}

}  // namespace
}  // namespace it

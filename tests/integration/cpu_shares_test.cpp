// cpu mode against known CPU shares: the samples of a method or a thread must be proportional
// to the CPU time it used, as the workload measured it itself.
#include "harness.h"

namespace it {
namespace {

constexpr double kIntervalNs = 10e6;

class CpuShares : public RecordingTest {
 protected:
  // `samples` and `cpu_ns` are keyed alike and cover disjoint sets of samples. Each share of
  // the samples must be within 3 points of its share of CPU time; at least 90 % of the
  // samples due (one per interval of CPU time) must be taken, and no more than 110 %:
  // sampling faster than asked is as wrong as missing samples.
  static void expectProportional(const std::map<std::string, double>& samples,
                                 const std::map<std::string, double>& cpu_ns,
                                 const json& report) {
    double sample_sum = 0, cpu_sum = 0;
    for (const auto& [name, nanos] : cpu_ns) {
      sample_sum += samples.at(name);
      cpu_sum += nanos;
    }
    for (const auto& [name, nanos] : cpu_ns) {
      EXPECT_NEAR(100 * samples.at(name) / sample_sum, 100 * nanos / cpu_sum, 3.0)
          << name << ": " << samples.at(name) << " of " << sample_sum << " samples";
    }
    double due = cpu_sum / kIntervalNs;
    EXPECT_GE(sample_sum, 0.9 * due) << "lost: " << report.at("lost").dump();
    EXPECT_LE(sample_sum, 1.1 * due);
  }
};

// One thread splits its CPU time 50/30/20 among three methods that never call each other.
TEST_F(CpuShares, EachMethodShareMatchesItsCpuTime) {
  ProcessResult rec = record({"-e", "cpu", "-i", "10ms"}, file("three.ssr"), "ThreeWay");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, double> cpu = truth(rec.out);
  ASSERT_EQ(cpu.size(), 3u) << rec.out;

  json methods = report(file("three.ssr"));
  EXPECT_EQ(methods.value("mode", ""), "cpu");
  EXPECT_EQ(methods.value("interval_ns", 0.0), kIntervalNs);
  std::map<std::string, double> samples;
  for (const auto& [name, nanos] : cpu) {
    const json* m = find(methods, "methods", "method", kWorkloads + "ThreeWay." + name);
    ASSERT_NE(m, nullptr) << name << " missing from " << methods.dump(1);
    samples[name] = m->at("total").get<double>();
  }
  expectProportional(samples, cpu, methods);
}

// Half the CPU time inside System.arraycopy, a JIT stub rather than a compiled method: its
// samples still belong to the Java method that called it.
TEST_F(CpuShares, TimeInJitStubsCountsForTheCallingMethod) {
  ProcessResult rec = record({"-e", "cpu", "-i", "10ms"}, file("copy.ssr"), "ArrayCopy");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, double> cpu = truth(rec.out);
  ASSERT_EQ(cpu.size(), 2u) << rec.out;

  json methods = report(file("copy.ssr"));
  std::map<std::string, double> samples;
  for (const auto& [name, nanos] : cpu) {
    const json* m = find(methods, "methods", "method", kWorkloads + "ArrayCopy." + name);
    ASSERT_NE(m, nullptr) << name << " missing from " << methods.dump(1);
    samples[name] = m->at("total").get<double>();
  }
  expectProportional(samples, cpu, methods);
}

// Three threads burn 50/30/20 of the CPU time side by side, on fewer cores than threads.
TEST_F(CpuShares, EachThreadShareMatchesItsCpuTime) {
  ProcessResult rec = record({"-e", "cpu", "-i", "10ms"}, file("threads.ssr"), "ThreadShares");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, double> cpu = truth(rec.out);
  ASSERT_EQ(cpu.size(), 3u) << rec.out;

  json threads = report(file("threads.ssr"), {"--view", "threads"});
  std::map<std::string, double> samples;
  for (const auto& [name, nanos] : cpu) {
    const json* t = find(threads, "threads", "name", name);
    ASSERT_NE(t, nullptr) << name << " missing from " << threads.dump(1);
    samples[name] = t->at("samples").get<double>();
  }
  expectProportional(samples, cpu, threads);
}

}  // namespace
}  // namespace it

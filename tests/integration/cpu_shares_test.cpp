// cpu mode against ThreeWay: one thread splits its CPU time 50/30/20 among three methods and
// prints the CPU time it measured around each; the profile must agree.
#include "harness.h"

namespace it {
namespace {

constexpr double kIntervalNs = 10e6;

class CpuShares : public RecordingTest {};

TEST_F(CpuShares, EachMethodShareMatchesItsCpuTimeAndFewSamplesAreMissed) {
  ProcessResult rec = record({"-e", "cpu", "-i", "10ms"}, file("three.ssr"), "ThreeWay");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, double> cpu = truth(rec.out);
  ASSERT_EQ(cpu.size(), 3u) << rec.out;

  json methods = report(file("three.ssr"));
  EXPECT_EQ(methods.value("mode", ""), "cpu");
  EXPECT_EQ(methods.value("interval_ns", 0.0), kIntervalNs);

  // The three methods never call each other, so their totals are disjoint sets of samples.
  double cpu_sum = 0, sample_sum = 0;
  std::map<std::string, double> samples;
  for (const auto& [name, nanos] : cpu) {
    const json* m = find(methods, "methods", "method", kWorkloads + "ThreeWay." + name);
    ASSERT_NE(m, nullptr) << name << " missing from " << methods.dump(1);
    samples[name] = m->at("total").get<double>();
    cpu_sum += nanos;
    sample_sum += samples[name];
  }
  for (const auto& [name, nanos] : cpu) {
    EXPECT_NEAR(100 * samples[name] / sample_sum, 100 * nanos / cpu_sum, 3.0)
        << name << ": " << samples[name] << " of " << sample_sum << " samples";
  }

  // One sample is due per interval of CPU time: at least 90 % must be taken, and sampling
  // faster than asked (double counting) is as wrong as missing samples.
  double due = cpu_sum / kIntervalNs;
  EXPECT_GE(sample_sum, 0.9 * due) << "lost: " << methods.value("lost", json()).dump();
  EXPECT_LE(sample_sum, 1.1 * due);
}

}  // namespace
}  // namespace it

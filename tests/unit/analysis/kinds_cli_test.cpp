// --event and --metric through the command, on the recording of two kinds (kinds_fixture.h):
// every view, navigation step, filter and snapshot counts the chosen kind in the chosen
// metric and says so; a kind or metric the recording lacks is one clear error; the view
// cache keeps the choices apart.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixture.h"
#include "kinds_fixture.h"

namespace stackscope::testing {
namespace {

constexpr uint64_t kInterval = static_cast<uint64_t>(kKindsIntervalNs);

class KindsCli : public ::testing::Test {
 protected:
  void SetUp() override { writeKindsRecording(dir_.file("kinds.ssr")); }
  CliResult run(const std::string& args) { return runCli("report kinds.ssr " + args, dir_.path()); }
  nlohmann::json json(const std::string& args) {
    const CliResult r = run(args + " --json");
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return nlohmann::json::parse(r.out);
  }
  void expectError(const std::string& args, const std::string& needle) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("stackscope: error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
  TempDir dir_;
};

TEST_F(KindsCli, DefaultIsTheRecordingsOwnKindInSamples) {
  const auto j = json("--no-cache");
  EXPECT_EQ(j["event"], "cpu");
  EXPECT_EQ(j["metric"], "samples");
  EXPECT_EQ(j["unit"], "count");
  EXPECT_EQ(j["samples"], kCpuSamples);
  EXPECT_EQ(j["total"], kCpuSamples);
}

TEST_F(KindsCli, MethodsInTimeAreNanosecondsEstimatedFromTheSamples) {
  const auto j = json("--no-cache --event wall --metric time");
  EXPECT_EQ(j["event"], "wall");
  EXPECT_EQ(j["metric"], "time");
  EXPECT_EQ(j["unit"], "ns");
  EXPECT_EQ(j["samples"], kWallSamples);
  EXPECT_EQ(j["total"], kWallSamples * kInterval);
  const auto& top = j["methods"][0];
  EXPECT_EQ(top["method"], "java.lang.Thread.sleep");
  EXPECT_EQ(top["self"], kWallSleepSamples * kInterval);
  EXPECT_DOUBLE_EQ(top["self_pct"].get<double>(), std::round(1e6 * kWallSleepSamples / kWallSamples) / 1e4);
}

TEST_F(KindsCli, EveryViewStatesItsEventMetricAndUnit) {
  // The callers view is narrowed to the samples with its focus method on the stack.
  const std::pair<const char*, uint64_t> views[] = {
      {"methods", kWallSamples}, {"tree", kWallSamples},     {"threads", kWallSamples}, {"states", kWallSamples},
      {"users", kWallSamples},   {"vthreads", kWallSamples}, {"status", kWallSamples},
      {"methods[java.lang.Thread.sleep]/callers", kWallSleepSamples}};
  for (const auto& [view, samples] : views) {
    const auto j = json(std::string("--no-cache --event wall --metric time --view '") + view + "'");
    EXPECT_EQ(j["event"], "wall") << view;
    EXPECT_EQ(j["metric"], "time") << view;
    EXPECT_EQ(j["unit"], "ns") << view;
    EXPECT_EQ(j["samples"], samples) << view;
    EXPECT_EQ(j["total"], samples * kInterval) << view;
  }
  const auto threads = json("--no-cache --event wall --metric time --view threads");
  EXPECT_EQ(threads["threads"][0]["time"], kWallMainThread * kInterval);
  const auto callers = json("--no-cache --event wall --view 'methods[java.lang.Thread.sleep]/callers'");
  EXPECT_EQ(callers["focus_samples"], kWallSleepSamples);
}

TEST_F(KindsCli, NavigationFiltersAndSnapshotsNarrowTheChosenKind) {
  EXPECT_EQ(json("--no-cache --event wall --view 'threads[worker]/methods'")["total"], kWallWorker);
  EXPECT_EQ(json("--no-cache --event cpu --view 'threads[worker]/methods'")["total"], kCpuWorker);
  EXPECT_EQ(json("--no-cache --event wall --metric time --where 'user=u2'")["total"], kWallWorker * kInterval);
  EXPECT_EQ(json("--no-cache --event wall --snapshot late")["total"], kWallLate);
  EXPECT_EQ(json("--no-cache --event cpu --snapshot late")["total"], 0u);
}

TEST_F(KindsCli, TextHeaderSaysTheMetricAndColumnsAreNamedByIt) {
  const CliResult r = run("--no-cache --event wall --metric time --view users");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Metric:    wall time (ns), " + std::to_string(kWallSamples * kInterval) + " in the view"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Time     Pct  User"), std::string::npos) << r.out;
}

TEST_F(KindsCli, AKindOrMetricTheRecordingLacksIsOneClearError) {
  expectError("--event alloc", "the recording has no alloc events; it has: cpu, wall");
  expectError("--event wall --metric bytes", "wall events have no metric 'bytes'; they have: samples (count), time (ns)");
  expectError("--event heap", "no such event kind");
  expectError("--event alloc --json --view tree", "it has: cpu, wall");
}

TEST_F(KindsCli, TheCacheKeepsKindsAndMetricsApart) {
  const auto wall = json("--event wall");  // computed, then cached
  const auto cpu = json("--event cpu");
  const auto time = json("--event wall --metric time");
  EXPECT_EQ(wall["total"], kWallSamples);
  EXPECT_EQ(cpu["total"], kCpuSamples);
  EXPECT_EQ(time["total"], kWallSamples * kInterval);
  EXPECT_EQ(json("--event wall"), wall);  // from the cache, the same view
}

}  // namespace
}  // namespace stackscope::testing

#include <gtest/gtest.h>

#include "agent/machine_load.h"
#include "agent/sampling_health.h"

namespace stackscope::agent {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(SamplingHealth, SilentCpuTimersAreReportedOnceWhenTheProcessClearlyUsedCpu) {
  SamplingHealth health(/*cpu_mode=*/true, 10 * kMs);
  const int64_t threshold = health.silentThresholdNs();
  EXPECT_GE(threshold, 100 * 10 * kMs);
  EXPECT_TRUE(health.check(threshold - 1, 0, true).empty());  // not enough CPU yet
  EXPECT_TRUE(health.check(threshold * 3, 5, true).empty());  // samples came: all is well
  const auto warnings = health.check(threshold, 0, true);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("produced no sample"), std::string::npos) << warnings[0];
  EXPECT_TRUE(health.check(threshold * 2, 0, true).empty());  // once
}

TEST(SamplingHealth, LossesCountAsTimersThatFired) {
  SamplingHealth health(true, 10 * kMs);
  EXPECT_TRUE(health.check(health.silentThresholdNs() * 2, 1, true).empty());
}

TEST(SamplingHealth, WallModeHasNoCpuTimersToBeSilent) {
  SamplingHealth health(/*cpu_mode=*/false, 10 * kMs);
  EXPECT_TRUE(health.check(health.silentThresholdNs() * 10, 0, true).empty());
}

TEST(SamplingHealth, ALongIntervalRaisesTheThreshold) {
  EXPECT_EQ(SamplingHealth(true, 1000 * kMs).silentThresholdNs(), 100 * 1000 * kMs);
}

TEST(SamplingHealth, AReplacedHandlerIsReportedOnceInEitherMode) {
  for (bool cpu : {true, false}) {
    SamplingHealth health(cpu, 10 * kMs);
    const auto warnings = health.check(0, 10, /*handler_ours=*/false);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("replaced stackscope's SIGPROF handler"), std::string::npos);
    EXPECT_TRUE(health.check(0, 10, false).empty());
  }
}

TEST(MachineLoad, ParsesProcStatAndComputesTheLoadBetweenReadings) {
  MachineCpuTimes a, b;
  ASSERT_TRUE(parseMachineCpuTimes("cpu  100 0 100 700 100 0 0 0 0 0\ncpu0 1 2 3 4\n", a));
  EXPECT_EQ(a.total, 1000u);
  EXPECT_EQ(a.busy, 200u);  // idle and iowait are not busy
  ASSERT_TRUE(parseMachineCpuTimes("cpu  400 0 100 1000 100 0 0 0 0 0\n", b));
  EXPECT_EQ(machineLoadPlusOne(a, b), 500u + 1);  // 300 busy of 600
  EXPECT_EQ(machineLoadPlusOne(a, a), 0u);  // no time passed: not measured
  EXPECT_FALSE(parseMachineCpuTimes("intr 1 2 3", a));
  EXPECT_FALSE(parseMachineCpuTimes("cpu  1 2", a));
  MachineCpuTimes real;
  ASSERT_TRUE(readMachineCpuTimes(real));
  EXPECT_GT(real.total, real.busy);
}

}  // namespace
}  // namespace stackscope::agent

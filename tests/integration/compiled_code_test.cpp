// Samples in compiled code land on the code that ran, not on a nearby safepoint of an inlined
// method: the agent turns on the VM's debug information between safepoints by itself, and
// the recording says so.
#include "harness.h"

namespace it {
namespace {

class CompiledCode : public RecordingTest {};

TEST_F(CompiledCode, TheRecordingSaysNonSafepointDebugInfoIsOn) {
  ProcessResult rec = record({"-e", "cpu"}, file("info.ssr"), "ThreeWay", {"300"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(rec.err.find("DebugNonSafepoints"), std::string::npos) << rec.err;
  json info = query({"info", file("info.ssr")});
  EXPECT_EQ(info.at("recording").value("non_safepoint_debug", ""), "on") << info.dump(1);
}

// The loop's time is the cache misses of its array load, in sumRandom itself; the inlined
// ThreadLocalRandom calls cost a few instructions each. Safepoint-biased attribution gave
// ThreadLocalRandom.current about 70 % of the samples here. Tolerance: sumRandom keeps at
// least 75 % of the self samples and ThreadLocalRandom at most 15 % (the generator's real
// cost, measured with -XX:+DebugNonSafepoints, is a few percent).
TEST_F(CompiledCode, RandomReadsOfALargeArrayBelongToTheLoop) {
  ProcessResult rec = record({"-e", "cpu", "-i", "5ms"}, file("reads.ssr"), "RandomReads", {"3000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  json methods = report(file("reads.ssr"), {"--top", "1000"});
  double all = methods.at("samples").get<double>(), loop = 0, generator = 0;
  for (const json& m : methods.at("methods")) {
    const std::string name = m.at("method").get<std::string>();
    const double self = m.at("self").get<double>();
    if (name == kWorkloads + "RandomReads.sumRandom") loop += self;
    if (name.rfind("java.util.concurrent.ThreadLocalRandom.", 0) == 0) generator += self;
  }
  ASSERT_GT(all, 200) << "too few samples to judge: " << methods.dump(1);
  EXPECT_GE(loop / all, 0.75) << methods.dump(1);
  EXPECT_LE(generator / all, 0.15) << methods.dump(1);
}

}  // namespace
}  // namespace it

// Recursion: nearly every sample has descend 200 times on its stack. A method's total counts
// a sample once however often the method appears in it.
#include <algorithm>

#include "harness.h"

namespace it {
namespace {

class RecursionTotals : public RecordingTest {};

TEST_F(RecursionTotals, RecursiveMethodIsCountedOncePerSample) {
  ProcessResult rec = record({"-e", "cpu"}, file("recursion.ssr"), "Recursion");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;

  json methods = report(file("recursion.ssr"));
  double samples = methods.at("samples").get<double>();
  ASSERT_GT(samples, 50) << "about 200 expected from 2 s of CPU at 10 ms";
  const json* descend = find(methods, "methods", "method", kWorkloads + "Recursion.descend");
  const json* leaf = find(methods, "methods", "method", kWorkloads + "Recursion.leaf");
  ASSERT_NE(descend, nullptr) << methods.dump(1);
  ASSERT_NE(leaf, nullptr) << methods.dump(1);

  EXPECT_LE(descend->at("total").get<double>(), samples);
  EXPECT_LE(descend->at("total_pct").get<double>(), 100.0);
  EXPECT_GE(descend->at("total_pct").get<double>(), 90.0);
  // Every leaf call is below descend, and descend itself does almost nothing.
  EXPECT_LE(leaf->at("total").get<double>(), descend->at("total").get<double>());
  EXPECT_GE(leaf->at("total_pct").get<double>(), 90.0);
  EXPECT_LE(descend->at("self_pct").get<double>(), 5.0);
  for (const json& m : methods.at("methods")) {
    EXPECT_LE(m.at("total").get<double>(), samples) << m.dump();
  }

  // descend is entered 201 times (depth 200 down to 0): in the call tree its deepest node
  // has it 200 times above, its recursion level (RL).
  json tree = report(file("recursion.ssr"), {"--view", "tree", "--top", "0"});
  int deepest = -1;
  for (const json& node : tree.at("nodes")) {
    if (node.at("method") == kWorkloads + "Recursion.descend") {
      deepest = std::max(deepest, node.at("rl").get<int>());
    }
  }
  EXPECT_EQ(deepest, 200);
}

// Deeper than the 512 frames a walk keeps: the stacks end in the "[truncated]" pseudo-frame,
// so a cut stack is never mistaken for a whole one.
TEST_F(RecursionTotals, StacksDeeperThanTheWalkAreMarkedTruncated) {
  ProcessResult rec = record({"-e", "cpu"}, file("deep.ssr"), "Recursion", {"1000", "600"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  // The program's own threads: mixed mode also samples the JIT compilers, which are busy
  // while the recursion warms up (CI once saw 10.9 % of all samples not truncated).
  json methods = report(file("deep.ssr"), {"--where", "not thread=jvm:*"});
  const double samples = methods.at("samples").get<double>();
  ASSERT_GT(samples, 30) << "about 100 expected from 1 s of CPU at 10 ms";
  const json* truncated = find(methods, "methods", "method", "[truncated]");
  ASSERT_NE(truncated, nullptr) << methods.dump(1);
  EXPECT_GE(truncated->at("total_pct").get<double>(), 90.0) << "nearly every sample is 600 deep";
  EXPECT_EQ(truncated->at("self").get<double>(), 0.0);
  json tree = report(file("deep.ssr"), {"--view", "tree", "--top", "0"});
  int deepest = -1;
  for (const json& node : tree.at("nodes")) deepest = std::max(deepest, node.at("level").get<int>());
  EXPECT_EQ(deepest, 512) << "512 kept frames below the marker at level 0";
}

}  // namespace
}  // namespace it

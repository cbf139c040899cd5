// Which thread started which (ThreadParent records) on a real JVM: ThreadStarts starts outer
// in spawnOuter, outer starts inner in spawnInner, and a pool's two threads are started by the
// JDK; each thread burns a CPU budget it measures itself. The summary's thread tree and the
// stacks merged at the starting call must say so.
#include <sstream>

#include "harness.h"
#include "process.h"

namespace it {
namespace {

class ThreadParents : public RecordingTest {};

const json* threadNode(const json& tree, const std::string& name) {
  for (const json& t : tree)
    if (t.at("thread") == name) return &t;
  return nullptr;
}

TEST_F(ThreadParents, SummaryTreeAndMergedStacksFollowTheStarts) {
  ProcessResult rec = record({"-e", "cpu"}, file("starts.ssr"), "ThreadStarts");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::map<std::string, double> cpu = truth(rec.out);
  const json summary = query({"summary", file("starts.ssr"), "--where", "not thread=jvm:*"});
  const json& tree = summary.at("threads").at("tree");
  ASSERT_TRUE(tree.is_array()) << summary.dump(1);
  const json* outer = threadNode(tree, "outer");
  const json* inner = threadNode(tree, "inner");
  const json* pool = threadNode(tree, "pool-1-thread-1");
  ASSERT_TRUE(outer && inner && pool) << tree.dump(1);
  EXPECT_EQ(outer->at("depth"), 1);
  EXPECT_EQ(outer->at("started_at"), kWorkloads + "ThreadStarts.spawnOuter");
  EXPECT_EQ(inner->at("depth"), 2);
  EXPECT_EQ(inner->at("started_at"), kWorkloads + "ThreadStarts.spawnInner");
  EXPECT_EQ(pool->at("depth"), 1);
  EXPECT_EQ(pool->at("started_at"), "java.util.concurrent.ThreadPoolExecutor.addWorker");
  EXPECT_EQ(tree.at(0).at("depth"), 0) << "the main thread is the root";
  // outer with what it started holds outer's and inner's CPU: within 5 points of the truth.
  const double total = summary.at("total").get<double>();
  const double all = cpu.at("main") + cpu.at("pool") + cpu.at("outer") + cpu.at("inner");
  EXPECT_NEAR(100 * outer->at("with_started").get<double>() / total, 100 * (cpu.at("outer") + cpu.at("inner")) / all, 5);
  EXPECT_NEAR(100 * inner->at("value").get<double>() / total, 100 * cpu.at("inner") / all, 5);

  // Merged, every sample of inner hangs below spawnOuter, [thread outer], spawnInner, [thread inner].
  ProcessResult folded = run({STACKSCOPE_BIN, "export", file("starts.ssr"), "--format", "collapsed",
                                     "--merge-threads", "--where", "thread=inner", "-o", "-"});
  ASSERT_EQ(folded.exit_code, 0) << folded.err;
  double merged = 0;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t at_outer = line.find("ThreadStarts.spawnOuter;"), at_inner = line.find("ThreadStarts.spawnInner;");
    EXPECT_TRUE(at_outer != std::string::npos && at_inner != std::string::npos && at_outer < line.find("[thread outer]") &&
                line.find("[thread outer]") < at_inner && at_inner < line.find("[thread inner]"))
        << line;
    merged += std::stod(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_EQ(merged, inner->at("value").get<double>());
}

}  // namespace
}  // namespace it

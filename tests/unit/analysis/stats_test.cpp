// The statistics on the reference recording (fixture.h), whose answers are known by
// construction: the method statistic, the call tree and the thread statistic.
#include <gtest/gtest.h>

#include "analysis/call_tree.h"
#include "analysis/load.h"
#include "analysis/method_stats.h"
#include "analysis/names.h"
#include "analysis/thread_stats.h"
#include "fixture.h"

namespace stackscope::analysis {
namespace {

using testing::kMs;

struct Row {
  std::string method;
  uint64_t self, total;
  bool operator==(const Row&) const = default;
};

std::vector<Row> rows(const Recording& r, const MethodStats& stats) {
  std::vector<Row> out;
  for (const MethodStat& m : stats.methods) out.push_back({methodName(r, m.method), m.self, m.total});
  return out;
}

class StatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::writeReferenceRecording(dir_.file("ref.ssr"));
    rec_ = loadRecording(dir_.file("ref.ssr"));
  }
  testing::TempDir dir_;
  Recording rec_;
};

TEST_F(StatsTest, MethodsSelfAndTotalSortedBySelfThenTotalThenName) {
  const MethodStats stats = computeMethodStats(rec_, ownEvents(rec_));
  EXPECT_EQ(stats.totals.samples, 14u);
  const std::vector<Row> expected = {
      {"app.Work.a", 5, 10},         {"java.lang.Thread.sleep", 4, 4}, {"app.Util$Inner.leaf", 3, 3},
      {"app.Work.b", 2, 2},          {"app.Main.main", 0, 7},          {"app.Worker.run", 0, 7}};
  EXPECT_EQ(rows(rec_, stats), expected);
}

TEST_F(StatsTest, RecursionCountsOncePerSampleInTotal) {
  // Only main > a > b > a > b has b, twice on each of its 2 samples: total 2, not 4.
  const MethodStats stats = computeMethodStats(rec_, ownEvents(rec_, [](const Event& s) { return s.time_ns == 40 * kMs; }));
  EXPECT_EQ(stats.totals.samples, 1u);
  for (const MethodStat& m : stats.methods) EXPECT_LE(m.total, 1u) << methodName(rec_, m.method);
}

TEST_F(StatsTest, PredicateNarrowsTheView) {
  const MethodStats stats = computeMethodStats(rec_, ownEvents(rec_, [](const Event& s) { return s.thread == 2; }));
  EXPECT_EQ(stats.totals.samples, 3u);
  const std::vector<Row> expected = {{"app.Work.a", 3, 3}, {"app.Worker.run", 0, 3}};
  EXPECT_EQ(rows(rec_, stats), expected);
}

struct TreeRow {
  int level;
  uint32_t rl;
  uint64_t calls, base, cum;
  std::string method;
  bool operator==(const TreeRow&) const = default;
};

std::ostream& operator<<(std::ostream& out, const TreeRow& r) {
  return out << r.level << ' ' << r.rl << ' ' << r.calls << ' ' << r.base << ' ' << r.cum << ' ' << r.method;
}

std::vector<TreeRow> treeRows(const Recording& r, const CallTree& tree) {
  std::vector<TreeRow> out;
  for (uint32_t id : tree.preorder()) {
    const CallTreeNode& n = tree.nodes[id];
    out.push_back({n.level, n.rl, n.calls, n.base, n.cum, methodName(r, n.method)});
  }
  return out;
}

TEST_F(StatsTest, CallTreeLevelRecursionCallsBaseCum) {
  const CallTree tree = buildCallTree(rec_, ownEvents(rec_));
  EXPECT_EQ(tree.totals.value, 14u);
  const std::vector<TreeRow> expected = {
      {0, 0, 1, 0, 7, "app.Main.main"},
      {1, 0, 1, 2, 7, "app.Work.a"},
      {2, 0, 2, 3, 3, "app.Util$Inner.leaf"},  // entered at 10 and again at 60
      {2, 0, 1, 0, 2, "app.Work.b"},
      {3, 1, 1, 0, 2, "app.Work.a"},
      {4, 1, 1, 2, 2, "app.Work.b"},
      {0, 0, 2, 0, 7, "app.Worker.run"},  // entered once by each of two threads
      {1, 0, 1, 4, 4, "java.lang.Thread.sleep"},
      {1, 0, 1, 3, 3, "app.Work.a"},
  };
  EXPECT_EQ(treeRows(rec_, tree), expected);
}

TEST_F(StatsTest, CallsCountEntriesPerThreadNotSamples) {
  // Thread 1 alone: a path that stays on the stack for several samples is entered once.
  const CallTree tree = buildCallTree(rec_, ownEvents(rec_, [](const Event& s) { return s.thread == 1; }));
  const auto r = treeRows(rec_, tree);
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0], (TreeRow{0, 0, 1, 0, 7, "app.Main.main"}));
}

TEST_F(StatsTest, ThreadsAndStates) {
  const ThreadStats stats = computeThreadStats(rec_, ownEvents(rec_));
  EXPECT_EQ(stats.totals.samples, 14u);
  ASSERT_EQ(stats.threads.size(), 3u);
  const auto state = [](const ThreadStat& t, format::ThreadState s) { return t.states[static_cast<size_t>(s)]; };
  EXPECT_EQ(threadName(rec_, stats.threads[0].thread), "main");
  EXPECT_EQ(stats.threads[0].value, 7u);
  EXPECT_EQ(state(stats.threads[0], format::ThreadState::Running), 6u);
  EXPECT_EQ(state(stats.threads[0], format::ThreadState::Blocked), 1u);
  EXPECT_EQ(threadName(rec_, stats.threads[1].thread), "sleeper");
  EXPECT_EQ(state(stats.threads[1], format::ThreadState::Sleeping), 4u);
  EXPECT_EQ(threadName(rec_, stats.threads[2].thread), "worker-1");
  EXPECT_EQ(stats.threads[2].value, 3u);
}

TEST_F(StatsTest, WindowedStatistics) {
  const Recording r = loadRecording(dir_.file("ref.ssr"), {20 * kMs, 50 * kMs});
  const std::vector<Row> expected = {{"java.lang.Thread.sleep", 2, 2}, {"app.Work.a", 1, 3}, {"app.Util$Inner.leaf", 1, 1},
                                     {"app.Work.b", 1, 1},             {"app.Main.main", 0, 3}, {"app.Worker.run", 0, 2}};
  EXPECT_EQ(rows(r, computeMethodStats(r, ownEvents(r))), expected);
}

TEST(EmptyRecording, StatisticsOfNoSamplesAreEmpty) {
  testing::TempDir dir;
  testing::writeReferenceRecording(dir.file("ref.ssr"));
  const Recording r = loadRecording(dir.file("ref.ssr"), {1000 * kMs, TimeWindow::kOpen});
  EXPECT_EQ(computeMethodStats(r, ownEvents(r)).totals.samples, 0u);
  EXPECT_TRUE(computeMethodStats(r, ownEvents(r)).methods.empty());
  EXPECT_TRUE(buildCallTree(r, ownEvents(r)).preorder().empty());
  EXPECT_TRUE(computeThreadStats(r, ownEvents(r)).threads.empty());
}

}  // namespace
}  // namespace stackscope::analysis

// One event model, every view over it: on a recording of two kinds (kinds_fixture.h) each
// view counts the events of the chosen kind in the chosen metric, and nothing of the other
// kind; on a hand-built model of allocation events, the views count a stored quantity.
#include <gtest/gtest.h>

#include <map>

#include "analysis/call_tree.h"
#include "analysis/callers.h"
#include "analysis/group_stats.h"
#include "analysis/load.h"
#include "analysis/method_stats.h"
#include "analysis/names.h"
#include "analysis/stack_counts.h"
#include "analysis/thread_stats.h"
#include "analysis/vthread_stats.h"
#include "analysis/where_filter.h"
#include "fixture.h"
#include "format/writer.h"
#include "kinds_fixture.h"

namespace stackscope::analysis {
namespace {

using namespace stackscope::testing;

EventScope scopeOf(EventKind kind, const char* metric, EventPredicate keep = {}) {
  const MetricInfo* info = findMetric(kind, metric);
  EXPECT_NE(info, nullptr) << metric;
  return {kind, info, std::move(keep)};
}

// What a metric makes of a number of samples: itself, or that many intervals.
uint64_t inMetric(const char* metric, uint64_t samples) {
  return std::string(metric) == "time" ? samples * static_cast<uint64_t>(kKindsIntervalNs) : samples;
}

std::map<std::string, MethodStat> byName(const Recording& r, const MethodStats& stats) {
  std::map<std::string, MethodStat> out;
  for (const MethodStat& m : stats.methods) out[methodName(r, m.method)] = m;
  return out;
}

class EventModel : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    writeKindsRecording(dir_.file("kinds.ssr"));
    rec_ = loadRecording(dir_.file("kinds.ssr"));
  }
  const char* metric() const { return GetParam(); }
  TempDir dir_;
  Recording rec_;
};

TEST(EventModelLoad, BothKindsLoadAndTheModeNamesTheOwnKind) {
  TempDir dir;
  writeKindsRecording(dir.file("kinds.ssr"));
  const Recording r = loadRecording(dir.file("kinds.ssr"));
  EXPECT_EQ(r.eventKinds(), (std::vector<EventKind>{EventKind::Cpu, EventKind::Wall}));
  EXPECT_EQ(ownEvents(r).kind, EventKind::Cpu);
  EXPECT_STREQ(ownEvents(r).metric->name, "samples");
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
  uint64_t cpu = 0, wall = 0;
  for (const Event& e : r.events) (e.kind == EventKind::Cpu ? cpu : wall) += e.weight;
  EXPECT_EQ(cpu, kCpuSamples);
  EXPECT_EQ(wall, kWallSamples);
  for (size_t i = 1; i < r.events.size(); ++i) EXPECT_LE(r.events[i - 1].time_ns, r.events[i].time_ns);
}

// A newer writer's sampler: its samples are skipped and counted in a warning, never taken
// for another kind's.
TEST(EventModelLoad, SamplesOfAnUnknownKindAreSkippedWithAWarning) {
  TempDir dir;
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir.file("new.ssr")));
  writeTestInfo(w, "wall", 0, 1);
  const format::Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  w.writeSample({1, 1, stack, format::ThreadState::Running, 1});
  format::SampleRecord future{2, 1, stack, format::ThreadState::Running, 5};
  future.kind = static_cast<format::SampleKind>(7);
  w.writeSample(future);
  ASSERT_TRUE(w.finish(3));
  const Recording r = loadRecording(dir.file("new.ssr"));
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].kind, EventKind::Wall);
  EXPECT_EQ(r.eventKinds(), std::vector<EventKind>{EventKind::Wall});
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "1 samples of a kind this reader does not know were skipped");
}

TEST_P(EventModel, MethodsCountTheChosenKindInTheChosenMetric) {
  const MethodStats wall = computeMethodStats(rec_, scopeOf(EventKind::Wall, metric()));
  EXPECT_EQ(wall.totals.samples, kWallSamples);
  EXPECT_EQ(wall.totals.value, inMetric(metric(), kWallSamples));
  auto rows = byName(rec_, wall);
  EXPECT_EQ(rows["java.lang.Thread.sleep"].self, inMetric(metric(), kWallSleepSamples));
  EXPECT_EQ(rows["app.Work.nap"].total, inMetric(metric(), kWallSleepSamples));
  EXPECT_EQ(rows["app.Work.crunch"].self, inMetric(metric(), kWallCrunchSamples));
  EXPECT_EQ(rows["app.Main.main"].total, inMetric(metric(), kWallSamples));

  const MethodStats cpu = computeMethodStats(rec_, scopeOf(EventKind::Cpu, metric()));
  EXPECT_EQ(cpu.totals.value, inMetric(metric(), kCpuSamples));
  rows = byName(rec_, cpu);
  EXPECT_EQ(rows.count("java.lang.Thread.sleep"), 0u);  // only wall samples sleep
  EXPECT_EQ(rows["app.Work.crunch"].self, inMetric(metric(), kCpuCrunchSamples));
}

TEST_P(EventModel, CallTreeBaseAndCumInTheMetricCallsInEntries) {
  const CallTree tree = buildCallTree(rec_, scopeOf(EventKind::Wall, metric()));
  EXPECT_EQ(tree.totals.value, inMetric(metric(), kWallSamples));
  EXPECT_EQ(tree.nodes[CallTree::kRoot].cum, tree.totals.value);
  std::map<std::string, const CallTreeNode*> nodes;
  for (uint32_t id : tree.preorder()) nodes[methodName(rec_, tree.nodes[id].method)] = &tree.nodes[id];
  EXPECT_EQ(nodes["java.lang.Thread.sleep"]->base, inMetric(metric(), kWallSleepSamples));
  EXPECT_EQ(nodes["app.Work.nap"]->cum, inMetric(metric(), kWallSleepSamples));
  EXPECT_EQ(nodes["app.Work.crunch"]->base, inMetric(metric(), kWallCrunchSamples));
  // Entries do not depend on the metric: main's nap path is entered by main once (at 30ms)
  // and by the worker once.
  EXPECT_EQ(nodes["app.Work.nap"]->calls, 2u);
}

TEST_P(EventModel, CallersThreadsGroupsAndStacksCountTheMetric) {
  const EventScope wall = scopeOf(EventKind::Wall, metric());
  const CallersTree callers = buildCallers(rec_, {"java.lang.Thread.sleep"}, wall);
  EXPECT_EQ(callers.focusValue(), inMetric(metric(), kWallSleepSamples));
  EXPECT_EQ(callers.totals.value, inMetric(metric(), kWallSamples));

  const ThreadStats threads = computeThreadStats(rec_, wall);
  ASSERT_EQ(threads.threads.size(), 2u);
  EXPECT_EQ(threadName(rec_, threads.threads[0].thread), "main");
  EXPECT_EQ(threads.threads[0].value, inMetric(metric(), kWallMainThread));
  EXPECT_EQ(threads.threads[1].value, inMetric(metric(), kWallWorker));
  EXPECT_EQ(threads.states[static_cast<size_t>(format::ThreadState::Sleeping)], inMetric(metric(), kWallSleepSamples));

  const GroupStats users = computeGroupStats(rec_, GroupBy::User, scopeOf(EventKind::Cpu, metric()));
  ASSERT_EQ(users.groups.size(), 2u);
  EXPECT_EQ(users.groups[0].name, "u1");
  EXPECT_EQ(users.groups[0].value, inMetric(metric(), kCpuMainThread));
  EXPECT_EQ(users.groups[1].value, inMetric(metric(), kCpuWorker));
  const GroupStats states = computeGroupStats(rec_, GroupBy::State, scopeOf(EventKind::Cpu, metric()));
  ASSERT_EQ(states.groups.size(), 1u);  // the cpu samples all run
  EXPECT_EQ(states.groups[0].value, inMetric(metric(), kCpuSamples));

  const StackValues stacks = valuesByStack(rec_, wall);
  uint64_t sum = 0;
  for (uint64_t v : stacks.by_stack) sum += v;
  EXPECT_EQ(sum, stacks.totals.value);
  EXPECT_EQ(computeVirtualThreadStats(rec_, wall).totals.value, inMetric(metric(), kWallSamples));
}

TEST_P(EventModel, FiltersNarrowEventsOfTheChosenKindOnly) {
  // A filter compiled once serves every kind: it sees only the chosen kind's events.
  const EventPredicate late = [](const Event& e) { return e.time_ns >= 25 * kMs; };
  EXPECT_EQ(computeMethodStats(rec_, scopeOf(EventKind::Wall, metric(), late)).totals.value, inMetric(metric(), kWallLate));
  EXPECT_EQ(computeMethodStats(rec_, scopeOf(EventKind::Cpu, metric(), late)).totals.value, 0u);
  const EventPredicate worker = compileWhere(*parseWhere("thread=worker and event=wall"), rec_);
  EXPECT_EQ(computeThreadStats(rec_, scopeOf(EventKind::Wall, metric(), worker)).totals.value, inMetric(metric(), kWallWorker));
  EXPECT_EQ(computeThreadStats(rec_, scopeOf(EventKind::Cpu, metric(), worker)).totals.value, 0u);
}

INSTANTIATE_TEST_SUITE_P(Metrics, EventModel, ::testing::Values("samples", "time"));

// The virtual threads' stacks are rows of methods, as the view shows them: two stacks of the
// same methods at other bytecode indexes (a loop run interpreted, then compiled) are one row.
TEST(VirtualThreadStacks, StacksOfTheSameMethodsAreOneRow) {
  Recording r;
  r.strings = {"", "app.Burn", "spin", "run", "()V"};
  r.methods.resize(3);
  r.methods[1] = {true, 1, 2, 4, 0, {}};
  r.methods[2] = {true, 1, 3, 4, 0, {}};
  r.stacks = {{}, {{1, 3}, {2, 0}}, {{1, 17}, {2, 0}}, {{2, 5}}};
  r.stack_defined = {true, true, true, true};
  r.threads.resize(3);
  r.threads[1].is_virtual = r.threads[2].is_virtual = true;
  r.annotations.resize(1);
  const auto wall = [](int64_t t, uint32_t thread, uint32_t stack) {
    return Event{t, thread, stack, format::ThreadState::Running, 1, 0, EventKind::Wall};
  };
  r.events = {wall(0, 1, 1), wall(1, 1, 2), wall(2, 2, 2), wall(3, 2, 3)};
  r.kinds_seen = 1u << static_cast<unsigned>(EventKind::Wall);

  const VirtualThreadStats stats = computeVirtualThreadStats(r, scopeOf(EventKind::Wall, "samples"));
  ASSERT_EQ(stats.stacks.size(), 2u);
  EXPECT_EQ(stats.stacks[0].stack, 1u);  // the first stack of those methods stands for them
  EXPECT_EQ(stats.stacks[0].value, 3u);
  EXPECT_EQ(stats.stacks[0].threads, 2u);
  EXPECT_EQ(stats.stacks[1].stack, 3u);
  EXPECT_EQ(stats.stacks[1].value, 1u);
}

// A kind whose metrics are stored quantities (allocation samples: objects and bytes each
// event stands for), on a model built by hand as a decoder will fill it.
TEST(EventModelAmounts, ViewsCountAStoredQuantity) {
  Recording r;
  r.strings = {"", "app.Alloc", "small", "big", "()V"};
  r.methods.resize(3);
  r.methods[1] = {true, 1, 2, 4, 0, {}};
  r.methods[2] = {true, 1, 3, 4, 0, {}};
  r.stacks = {{}, {{1, 0}}, {{2, 0}}};
  r.stack_defined = {true, true, true};
  r.threads.resize(2);
  r.annotations.resize(1);
  const auto alloc = [](int64_t t, uint32_t stack) { return Event{t, 1, stack, format::ThreadState::Running, 1, 0, EventKind::Alloc}; };
  r.events = {alloc(0, 1), alloc(1, 2), alloc(2, 1), {3, 1, 2, format::ThreadState::Running, 1, 0, EventKind::Cpu}};
  r.amounts[0] = {10, 1, 10, 0};           // objects
  r.amounts[1] = {160, 4096, 160, 0};      // bytes
  r.kinds_seen = (1u << static_cast<unsigned>(EventKind::Alloc)) | (1u << static_cast<unsigned>(EventKind::Cpu));

  const MethodStats bytes = computeMethodStats(r, scopeOf(EventKind::Alloc, "bytes"));
  EXPECT_EQ(bytes.totals.samples, 3u);
  EXPECT_EQ(bytes.totals.value, 160u + 4096 + 160);
  ASSERT_EQ(bytes.methods.size(), 2u);
  EXPECT_EQ(methodName(r, bytes.methods[0].method), "app.Alloc.big");
  EXPECT_EQ(bytes.methods[0].self, 4096u);
  const MethodStats objects = computeMethodStats(r, scopeOf(EventKind::Alloc, "objects"));
  EXPECT_EQ(methodName(r, objects.methods[0].method), "app.Alloc.small");  // many small objects
  EXPECT_EQ(objects.methods[0].self, 20u);
  EXPECT_EQ(computeThreadStats(r, scopeOf(EventKind::Alloc, "samples")).totals.value, 3u);

  // A column no event filled was not recorded: the metric reads 0, never another column.
  r.amounts[1].clear();
  EXPECT_EQ(computeMethodStats(r, scopeOf(EventKind::Alloc, "bytes")).totals.value, 0u);
}

TEST(EventKindRegistry, EveryKindHasMetricsWithUnitsAndADefault) {
  for (const EventKindInfo& kind : eventKinds()) {
    EXPECT_EQ(parseEventKind(kind.name), kind.kind);
    ASSERT_FALSE(kind.metrics.empty()) << kind.name;
    EXPECT_EQ(findMetric(kind.kind, defaultMetric(kind.kind).name), &defaultMetric(kind.kind));
  }
  EXPECT_EQ(findMetric(EventKind::Cpu, "time")->unit, MetricUnit::Nanoseconds);
  EXPECT_EQ(findMetric(EventKind::Alloc, "bytes")->unit, MetricUnit::Bytes);
  EXPECT_EQ(findMetric(EventKind::Cpu, "bytes"), nullptr);
  EXPECT_FALSE(parseEventKind("heap"));
  EXPECT_EQ(metricList(EventKind::Wall), "samples (count), time (ns), cpu-time (ns), alloc-bytes (bytes)");
}

}  // namespace
}  // namespace stackscope::analysis

// The alloc and live traces' records in the model. The estimator against the sampling it
// inverts (a simulated JVMTI heap sampler over a known stream of objects); alloc events with
// their objects, bytes and class kept aligned through the time sort; live events as the
// followed objects not freed by the end of the window; the classes and ages views, classes[...]
// and --where class= on object events.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <limits>
#include <random>

#include "analysis/alloc_estimate.h"
#include "analysis/gc_stats.h"
#include "analysis/group_stats.h"
#include "analysis/load.h"
#include "analysis/resource_name.h"
#include "analysis/view.h"
#include "analysis/where_filter.h"
#include "cli_runner.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::analysis {
namespace {

using namespace stackscope::testing;

TEST(AllocEstimate, AnObjectStandsForTheInverseOfItsChanceToBePicked) {
  const uint64_t n = 512 * 1024;
  const AllocEstimate at_interval = estimateAllocation(n, n);
  EXPECT_NEAR(at_interval.objects, 1.0 / (1.0 - std::exp(-1.0)), 1e-9);  // 1.582
  EXPECT_NEAR(at_interval.bytes, n * at_interval.objects, 1e-3);
  const AllocEstimate small = estimateAllocation(32, n);  // about N/s + 1/2 objects, N bytes
  EXPECT_NEAR(small.objects, 16384.5, 0.01);
  EXPECT_NEAR(small.bytes, n + 16, 0.5);
  const AllocEstimate huge = estimateAllocation(100 * n, n);  // always picked
  EXPECT_DOUBLE_EQ(huge.objects, 1.0);
  EXPECT_DOUBLE_EQ(huge.bytes, 100.0 * n);
  const AllocEstimate every = estimateAllocation(40, 0);  // interval 0: every object recorded
  EXPECT_DOUBLE_EQ(every.objects, 1.0);
  EXPECT_DOUBLE_EQ(every.bytes, 40.0);
}

// A thread's sampling points spaced by exponential gaps of mean N over its allocated bytes; an
// object is picked when a point falls inside it, as HotSpot's heap sampler does. The
// estimates of a mixed stream come back to its true totals.
TEST(AllocEstimate, InvertsPoissonSamplingOfAKnownStream) {
  const double n = 64 * 1024;
  std::mt19937_64 random(42);
  std::exponential_distribution<double> gap(1.0 / n);
  const uint64_t sizes[] = {16, 32, 1040, 4112, 65536, 200000};
  const uint64_t counts[] = {8'000'000, 4'000'000, 100'000, 30'000, 2'000, 500};  // 1000-8000 samples each
  double next = gap(random), position = 0;
  for (size_t kind = 0; kind < std::size(sizes); ++kind) {
    double objects = 0, bytes = 0;
    for (uint64_t i = 0; i < counts[kind]; ++i) {
      position += static_cast<double>(sizes[kind]);
      if (next >= position) continue;
      while (next < position) next += gap(random);
      const AllocEstimate e = estimateAllocation(sizes[kind], static_cast<uint64_t>(n));
      objects += e.objects;
      bytes += e.bytes;
    }
    const double true_bytes = static_cast<double>(sizes[kind] * counts[kind]);
    // Sampling spreads the estimate by about 1/sqrt(samples), 1-3 % here: 8 % is 3 to 8 of them.
    EXPECT_NEAR(objects / static_cast<double>(counts[kind]), 1.0, 0.08) << "size " << sizes[kind];
    EXPECT_NEAR(bytes / true_bytes, 1.0, 0.08) << "size " << sizes[kind];
  }
}

TEST(AllocEstimate, RoundingKeepsTheMeanAndIsReproducible) {
  uint64_t sum = 0;
  constexpr int kRounds = 100000;
  for (int i = 0; i < kRounds; ++i) {
    const uint64_t r = roundUnbiased(1.582, static_cast<uint64_t>(i));
    EXPECT_TRUE(r == 1 || r == 2);
    sum += r;
  }
  EXPECT_NEAR(static_cast<double>(sum) / kRounds, 1.582, 0.01);
  EXPECT_EQ(roundUnbiased(7.5, 99), roundUnbiased(7.5, 99));
  EXPECT_EQ(roundUnbiased(3.0, 5), 3u);
  EXPECT_EQ(roundUnbiased(0.0, 5), 0u);
  // A hostile file's size and interval: a bounded count, never an overflow.
  const AllocEstimate absurd = estimateAllocation(1, UINT64_MAX);
  EXPECT_GT(absurd.objects, kLargestEstimate);
  EXPECT_EQ(roundUnbiased(absurd.objects, 1), 9'000'000'000'000'000'000u);
  EXPECT_EQ(roundUnbiased(std::numeric_limits<double>::infinity(), 1), 9'000'000'000'000'000'000u);
  EXPECT_EQ(roundUnbiased(std::numeric_limits<double>::quiet_NaN(), 1), 0u);
}

// main allocates byte[] in Buf.fill and Pair in Pairs.make; time samples between them. The
// trace's records come after the samples of their moment, out of time order.
class AllocRecording : public ::testing::Test {
 protected:
  static constexpr uint64_t kInterval = 1024;
  void SetUp() override {
    format::RecordingWriter w;
    ASSERT_TRUE(w.open(dir_.file("alloc.ssr")));
    writeTestInfo(w, "cpu,alloc,live", 0, 1);
    w.writeThread({1, "main", 11, 1});
    w.writeThread({2, "worker", 12, 2});
    w.writeMethod({1, w.internString("app.Buf"), w.internString("fill"), w.internString("()V"), 0, {}});
    w.writeMethod({2, w.internString("app.Pairs"), w.internString("make"), w.internString("()V"), 0, {}});
    const format::Frame fill{1, 3}, make{2, 4};
    fill_ = w.internStack(&fill, 1);
    make_ = w.internStack(&make, 1);
    const uint32_t bytes = w.internString("byte[]"), pair = w.internString("app.Pair");
    for (int64_t t : {10, 20, 30, 40}) w.writeSample({t * kMs, 1, make_, format::ThreadState::Running, 1});
    // Tags 1-3: byte[] of 1024 bytes (picked with p = 1 - 1/e: 1.58 objects, 1620 bytes each).
    w.writeAlloc({15 * kMs, 1, fill_, bytes, 1024, kInterval, 0, 1});
    w.writeAlloc({5 * kMs, 1, fill_, bytes, 1024, kInterval, 0, 2});
    w.writeAlloc({35 * kMs, 2, fill_, bytes, 1024, kInterval, 0, 3});
    // Tags 4-5: a 16-byte Pair (64.5 objects, 1032 bytes each).
    w.writeAlloc({25 * kMs, 1, make_, pair, 16, kInterval, 0, 4});
    w.writeAlloc({45 * kMs, 1, make_, pair, 16, kInterval, 0, 5});
    w.writeObjectFree({30 * kMs, 2});  // byte[] of tag 2 died at 30 ms
    w.writeObjectFree({50 * kMs, 4});  // the first Pair at 50 ms
    w.writeSample({50 * kMs, 1, make_, format::ThreadState::Running, 1});
    ASSERT_TRUE(w.finish(60 * kMs));
  }
  Recording load(TimeWindow window = {}) { return loadRecording(dir_.file("alloc.ssr"), window); }
  static ViewTotals totals(const Recording& r, EventKind kind, const char* metric, EventPredicate keep = {}) {
    return forEachEvent(r, {kind, findMetric(kind, metric), std::move(keep)}, [](const Event&, uint64_t) {});
  }

  TempDir dir_;
  uint32_t fill_ = 0, make_ = 0;
};

TEST_F(AllocRecording, AllocEventsCarryTheirEstimatesAndClassThroughTheTimeSort) {
  const Recording r = load();
  EXPECT_EQ(r.eventKinds(), (std::vector<EventKind>{EventKind::Cpu, EventKind::Alloc, EventKind::Live}));
  EXPECT_EQ(r.alloc_intervals, std::vector<uint64_t>{kInterval});
  ASSERT_EQ(r.labels[static_cast<size_t>(Label::ObjectClass)].size(), r.events.size());
  for (size_t i = 0; i < r.events.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(r.events[i - 1].time_ns, r.events[i].time_ns);
    }
    const Event& e = r.events[i];
    if (e.kind == EventKind::Cpu) {
      EXPECT_EQ(r.label(e, Label::ObjectClass), 0u);
      continue;
    }
    // Each event's class and bytes are those of its own record, wherever the sort moved it.
    const std::string& cls = r.string(r.label(e, Label::ObjectClass));
    EXPECT_EQ(cls, e.stack == fill_ ? "byte[]" : "app.Pair") << e.time_ns;
    const uint64_t bytes = r.amounts[findMetric(EventKind::Alloc, "bytes")->column][i];
    EXPECT_EQ(bytes, e.stack == fill_ ? 1620u : 1032u) << e.time_ns;
  }
  EXPECT_EQ(totals(r, EventKind::Alloc, "samples").value, 5u);
  EXPECT_EQ(totals(r, EventKind::Alloc, "bytes").value, 3 * 1620u + 2 * 1032u);
  const uint64_t objects = totals(r, EventKind::Alloc, "objects").value;  // 3 x 1.58 + 2 x 64.5, rounded per event
  EXPECT_GE(objects, 3 * 1u + 2 * 64u);
  EXPECT_LE(objects, 3 * 2u + 2 * 65u);
  EXPECT_EQ(totals(r, EventKind::Cpu, "samples").value, 5u);
  EXPECT_TRUE(r.warnings.empty());
}

TEST_F(AllocRecording, LiveEventsAreTheObjectsNotFreedByTheEndOfTheWindow) {
  // Whole recording: tags 2 and 4 died; 1, 3 (byte[]) and 5 (Pair) are live.
  const Recording whole = load();
  EXPECT_EQ(totals(whole, EventKind::Live, "samples").value, 3u);
  EXPECT_EQ(totals(whole, EventKind::Live, "bytes").value, 2 * 1620u + 1032u);
  // Up to 40 ms: allocated in the window are tags 1-4; tag 4's death at 50 ms is after the end.
  const Recording early = load({0, 40 * kMs});
  EXPECT_EQ(early.windowEndNs(), 40 * kMs);
  EXPECT_EQ(totals(early, EventKind::Live, "samples").value, 3u);
  EXPECT_EQ(totals(early, EventKind::Live, "bytes").value, 2 * 1620u + 1032u);
  const GroupStats classes = computeGroupStats(early, GroupBy::Class, {EventKind::Live, findMetric(EventKind::Live, "samples"), {}});
  ASSERT_EQ(classes.groups.size(), 2u);
  EXPECT_EQ(classes.groups[0].name, "byte[]");
  EXPECT_EQ(classes.groups[0].value, 2u);
  EXPECT_EQ(classes.groups[1].name, "app.Pair");
  EXPECT_EQ(classes.groups[1].value, 1u);
}

TEST_F(AllocRecording, AgesCountBackFromTheEndOfTheWindow) {
  const Recording r = load();  // ends at 60 ms: live tags 1 (15 ms), 3 (35 ms), 5 (45 ms) are 45, 25 and 15 ms old
  const GroupStats ages = computeGroupStats(r, GroupBy::Age, {EventKind::Live, findMetric(EventKind::Live, "samples"), {}});
  ASSERT_EQ(ages.groups.size(), 1u);
  EXPECT_EQ(ages.groups[0].name, "0s-100ms");
  EXPECT_EQ(ages.groups[0].value, 3u);
}

TEST_F(AllocRecording, ClassesGroupAndSelectTheObjectsClass) {
  const Recording r = load();
  const MetricInfo* bytes = findMetric(EventKind::Alloc, "bytes");
  const GroupStats classes = computeGroupStats(r, GroupBy::Class, {EventKind::Alloc, bytes, {}});
  ASSERT_EQ(classes.groups.size(), 2u);
  EXPECT_EQ(classes.groups[0].name, "byte[]");
  EXPECT_EQ(classes.groups[0].value, 3 * 1620u);
  EXPECT_EQ(classes.groups[1].name, "app.Pair");

  // classes[byte[]]/threads: the threads that allocated byte[].
  const ResourceName name = parseResourceName("classes[byte[]]/threads");
  EXPECT_EQ(name.toString(), "classes[byte[]]/threads");
  const EventPredicate keep = compileWhere(*name.filter(), r);
  EXPECT_EQ(totals(r, EventKind::Alloc, "samples", keep).value, 3u);
  EXPECT_EQ(totals(r, EventKind::Alloc, "samples", compileWhere(*parseWhere("class=byte[] and thread=worker"), r)).value, 1u);
  EXPECT_EQ(totals(r, EventKind::Alloc, "samples", compileWhere(*parseWhere("class=app.*"), r)).value, 2u);
  // On time samples class= is still the top frame's class.
  EXPECT_EQ(totals(r, EventKind::Cpu, "samples", compileWhere(*parseWhere("class=app.Pairs"), r)).value, 5u);
  EXPECT_EQ(totals(r, EventKind::Cpu, "samples", compileWhere(*parseWhere("class=byte[]"), r)).value, 0u);
  // methods[X]/allocations/classes: the classes X allocated.
  const ResourceName made = parseResourceName("methods[app.Pairs.make]/allocations/classes");
  const GroupStats by_make = computeGroupStats(r, GroupBy::Class, {EventKind::Alloc, bytes, compileWhere(*made.filter(), r)});
  ASSERT_EQ(by_make.groups.size(), 1u);
  EXPECT_EQ(by_make.groups[0].name, "app.Pair");
  // A class pattern that names allocated objects is no unmatched method pattern.
  EXPECT_TRUE(unmatchedMethodPatterns(*parseWhere("class=byte[]"), r).empty());
  EXPECT_EQ(unmatchedMethodPatterns(*parseWhere("class=nothing.Here"), r), std::vector<std::string>{"nothing.Here"});
}

// The live view says whether any collection ran in its window: with none, every sampled
// allocation counts as live, whatever the program keeps.
TEST_F(AllocRecording, FreedObjectsProveACollectionAndNothingTellsNone) {
  const auto whole = collectionsInWindow(load());  // tags 2 and 4 died: a collection ran
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->count, 1u);
  EXPECT_TRUE(whole->at_least);
  EXPECT_FALSE(collectionsInWindow(load({0, 25 * kMs}))) << "no gc trace, no status report, no death";
}

// Status reports at 10 ms (5 collections since the JVM started), 50 ms (5) and 90 ms (7);
// with_gc_trace adds the trace's records of the two collections, at 60 and 70 ms.
void writeCollections(const std::string& path, bool with_gc_trace) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  writeTestInfo(w, with_gc_trace ? "cpu,gc,alloc,live" : "cpu,alloc,live", 40 * kMs, 1);
  w.writeThread({1, "main", 11, 1});
  w.writeMethod({1, w.internString("app.Buf"), w.internString("fill"), w.internString("()V"), 0, {}});
  const format::Frame fill{1, 3};
  const uint32_t stack = w.internStack(&fill, 1);
  const uint32_t bytes = w.internString("byte[]");
  for (int64_t t : {10, 30, 55, 80}) w.writeAlloc({t * kMs, 1, stack, bytes, 1024, 1024, 0, static_cast<uint64_t>(t)});
  format::StatusRecord status;
  for (const auto& [t, count] : {std::pair{10, 5}, std::pair{50, 5}, std::pair{90, 7}}) {
    status.time_ns = t * kMs;
    status.gc_count = static_cast<uint64_t>(count);
    w.writeStatus(status);
  }
  if (with_gc_trace)
    for (int64_t t : {60, 70}) w.writeGc({t * kMs, kMs, w.internString("Serial"), w.internString("Allocation Failure")});
  ASSERT_TRUE(w.finish(100 * kMs));
}

TEST(LiveCollections, TheGcTraceOrTheStatusReportsTellHowManyCollectionsTheWindowHeld) {
  TempDir dir;
  const std::string reports = dir.file("reports.ssr"), traced = dir.file("traced.ssr");
  writeCollections(reports, false);
  writeCollections(traced, true);
  const auto between = collectionsInWindow(loadRecording(reports, {0, 60 * kMs}));
  ASSERT_TRUE(between);
  EXPECT_EQ(between->count, 0u);
  EXPECT_TRUE(between->at_least) << "before the first report nothing is seen";
  EXPECT_STREQ(between->source, "status reports");
  EXPECT_EQ(collectionsInWindow(loadRecording(reports))->count, 2u);
  const auto none = collectionsInWindow(loadRecording(traced, {0, 60 * kMs}));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->count, 0u);
  EXPECT_FALSE(none->at_least);
  EXPECT_STREQ(none->source, "gc trace");
  EXPECT_EQ(collectionsInWindow(loadRecording(traced))->count, 2u);

  // What report says: a header line and a member of --json.
  const CliResult text = runCli("report traced.ssr --event live --to 60ms", dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("none ran in the window (gc trace): no object could be freed, every sampled allocation counts as live"),
            std::string::npos) << text.out;
  const CliResult json = runCli("report traced.ssr --event live --to 60ms --json", dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json collections = nlohmann::json::parse(json.out).at("collections");
  EXPECT_EQ(collections, nlohmann::json({{"count", 0}, {"at_least", false}, {"source", "gc trace"}})) << json.out;
}

}  // namespace
}  // namespace stackscope::analysis

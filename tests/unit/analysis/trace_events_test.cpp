// The traces' records in the model: a collection is an event of kind gc whose time metric is
// its duration and whose labels are its collector and cause, kept with its event through the
// time sort (the writer puts a trace's events after the samples of the same moment); the gc
// view groups them by collector, narrowed like any view; an exception is an event of kind
// exception with its thread and stack.
#include <gtest/gtest.h>

#include "analysis/gc_stats.h"
#include "analysis/histogram_stats.h"
#include "analysis/method_stats.h"
#include "analysis/load.h"
#include "analysis/status_series.h"
#include "analysis/view.h"
#include "analysis/where_filter.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::analysis {
namespace {

using namespace stackscope::testing;

TEST(TraceEvents, CollectionsKeepTheirDurationsThroughTheTimeSort) {
  TempDir dir;
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir.file("gc.ssr")));
  writeTestInfo(w, "cpu,gc", 0, 1);
  w.writeThread({1, "main", 11, 1});
  const format::Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  const uint32_t young = w.internString("young"), full = w.internString("full");
  const uint32_t alloc = w.internString("Allocation Failure"), system = w.internString("System.gc()");
  for (int64_t t : {10, 20, 30, 40}) w.writeSample({t, 1, stack, format::ThreadState::Running, 1});
  // Written after the samples, earlier in time: the loader sorts them in.
  w.writeGc({15, 100, young, alloc});
  w.writeGc({5, 7, full, system});
  w.writeGc({35, 50, young, alloc});
  w.writeSample({50, 1, stack, format::ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(60));

  const Recording r = loadRecording(dir.file("gc.ssr"));
  const MetricInfo& time = *findMetric(EventKind::Gc, "time");
  ASSERT_EQ(r.amounts[time.column].size(), r.events.size());
  std::vector<std::pair<int64_t, uint64_t>> gcs;  // (time, duration) in event order
  for (size_t i = 0; i < r.events.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(r.events[i - 1].time_ns, r.events[i].time_ns);
    }
    if (r.events[i].kind == EventKind::Gc) gcs.emplace_back(r.events[i].time_ns, r.amounts[time.column][i]);
  }
  EXPECT_EQ(gcs, (std::vector<std::pair<int64_t, uint64_t>>{{5, 7}, {15, 100}, {35, 50}}));
  const ViewTotals totals = forEachEvent(r, {EventKind::Gc, &time, {}}, [](const Event&, uint64_t) {});
  EXPECT_EQ(totals.samples, 3u);
  EXPECT_EQ(totals.value, 157u);
  const ViewTotals cpu = forEachEvent(r, {EventKind::Cpu, &defaultMetric(EventKind::Cpu), {}}, [](const Event&, uint64_t) {});
  EXPECT_EQ(cpu.samples, 5u);

  std::vector<std::pair<std::string, std::string>> labels;  // (collector, cause) in event order
  for (const Event& e : r.events)
    if (e.kind == EventKind::Gc) labels.emplace_back(r.string(r.label(e, Label::Collector)), r.string(r.label(e, Label::Cause)));
  EXPECT_EQ(labels, (std::vector<std::pair<std::string, std::string>>{
                        {"full", "System.gc()"}, {"young", "Allocation Failure"}, {"young", "Allocation Failure"}}));

  const GcStats stats = computeGcStats(r, EventKind::Gc, {});
  EXPECT_EQ(stats.all.samples, 3u);
  EXPECT_EQ(stats.all.value, 157u);
  EXPECT_EQ(stats.all.max, 100u);
  ASSERT_EQ(stats.collectors.size(), 2u);
  const GroupStat& young_pauses = stats.collectors[0].pauses;
  EXPECT_EQ(young_pauses.name, "young");  // most time first
  EXPECT_EQ(young_pauses.samples, 2u);
  EXPECT_EQ(young_pauses.value, 150u);
  EXPECT_EQ(young_pauses.max, 100u);
  EXPECT_EQ(young_pauses.max_at_ns, 15);
  EXPECT_EQ(young_pauses.first_ns, 15);
  EXPECT_EQ(young_pauses.last_ns, 35);
  ASSERT_EQ(stats.collectors[0].causes.size(), 1u);
  EXPECT_EQ(stats.collectors[0].causes[0].name, "Allocation Failure");
  EXPECT_EQ(stats.collectors[0].causes[0].value, 2u);
  EXPECT_EQ(stats.collectors[1].pauses.name, "full");
  // Without the gc trace's events, nothing.
  EXPECT_TRUE(computeGcStats(r, EventKind::Cpu, {}).collectors.empty());

  // Narrowed as any view: by time (a snapshot's intervals are a predicate) and by --where on
  // the labels.
  const GcStats early = computeGcStats(r, EventKind::Gc, [](const Event& e) { return e.time_ns < 20; });
  EXPECT_EQ(early.all.samples, 2u);
  const GcStats system_gcs = computeGcStats(r, EventKind::Gc, compileWhere(*parseWhere("cause=System.*"), r));
  ASSERT_EQ(system_gcs.collectors.size(), 1u);
  EXPECT_EQ(system_gcs.collectors[0].pauses.name, "full");
  EXPECT_EQ(system_gcs.all.value, 7u);
  const GcStats not_young = computeGcStats(r, EventKind::Gc, compileWhere(*parseWhere("collector!=you*"), r));
  EXPECT_EQ(not_young.all.samples, 1u);

  // On the status timeline: each report gets the collections since the one before, narrowed
  // by the same predicate.
  Recording with_status = loadRecording(dir.file("gc.ssr"));
  for (int64_t t : {10, 30, 60}) with_status.statuses.push_back({t});
  Selection everything;
  everything.intervals = {TimeWindow{}};
  const std::vector<StatusRow> rows = statusSeries(with_status, everything, {});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].gc_pauses->samples, 1u);  // 5
  EXPECT_EQ(rows[1].gc_pauses->samples, 1u);  // 15
  EXPECT_EQ(rows[2].gc_pauses->value, 50u);   // 35
  const auto young_only = compileWhere(*parseWhere("collector=young"), with_status);
  EXPECT_EQ(statusSeries(with_status, everything, young_only)[0].gc_pauses->samples, 0u);
}

TEST(TraceEvents, ExceptionsAreEventsWithTheirThreadAndStack) {
  TempDir dir;
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir.file("exceptions.ssr")));
  writeTestInfo(w, "exception", 0, 1);
  w.writeThread({1, "main", 11, 1});
  w.writeMethod({1, w.internString("pkg.Parser"), w.internString("parse"), w.internString("()V"), 0, {}});
  w.writeMethod({2, w.internString(""), w.internString("java.lang.IllegalStateException"), w.internString(""), 0, {}});
  const format::Frame frames[] = {{2, -1}, {1, 7}};  // the class frame, then the throw site
  const uint32_t stack = w.internStack(frames, 2);
  w.writeException({10, 1, stack, 0});
  w.writeException({12, 1, stack, 0});
  ASSERT_TRUE(w.finish(20));
  const Recording r = loadRecording(dir.file("exceptions.ssr"));
  EXPECT_EQ(r.eventKinds(), std::vector<EventKind>{EventKind::Exception});
  ASSERT_EQ(r.events.size(), 2u);
  for (const Event& e : r.events) {
    EXPECT_EQ(e.kind, EventKind::Exception);
    EXPECT_EQ(e.thread, 1u);
    EXPECT_EQ(e.stack, stack);
  }
  EXPECT_TRUE(r.warnings.empty());
}

// A sample's metric deltas are its values in cpu-time (ns) and alloc-bytes: the method
// statistic sums them as self and total, samples without any (an idle thread's) count 0.
TEST(TraceEvents, SampleMetricDeltasAreMetricsOfTimeSamples) {
  TempDir dir;
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir.file("metrics.ssr")));
  format::RecordingInfo info;
  info.mode = "wall";
  info.interval_ns = 10;
  info.sample_metrics = format::kSampleCpuTime | format::kSampleAllocBytes;
  w.writeInfo(info);
  w.writeThread({1, "main", 11, 1});
  const format::Frame inner[] = {{1, 0}, {2, 0}};
  const uint32_t deep = w.internStack(inner, 2), shallow = w.internStack(&inner[1], 1);
  format::SampleRecord busy{10, 1, deep, format::ThreadState::Running};
  busy.cpu_us = 7;
  busy.alloc_bytes = 4096;
  w.writeSample(busy);
  w.writeSample({20, 1, shallow, format::ThreadState::Sleeping, 3});
  format::SampleRecord woke{30, 1, shallow, format::ThreadState::Running};
  woke.cpu_us = 2;
  w.writeSample(woke);
  ASSERT_TRUE(w.finish(40));

  const Recording r = loadRecording(dir.file("metrics.ssr"));
  const auto stats = [&](const char* metric) {
    return computeMethodStats(r, {EventKind::Wall, findMetric(EventKind::Wall, metric), {}});
  };
  const MethodStats cpu = stats("cpu-time");
  EXPECT_EQ(cpu.totals.samples, 5u);
  EXPECT_EQ(cpu.totals.value, 9'000u);
  const MethodStats bytes = stats("alloc-bytes");
  EXPECT_EQ(bytes.totals.value, 4096u);
  for (const MethodStat& m : cpu.methods) {
    if (m.method == 1) {
      EXPECT_EQ(m.self, 7'000u);
      EXPECT_EQ(m.total, 7'000u);
    } else {
      EXPECT_EQ(m.self, 2'000u);
      EXPECT_EQ(m.total, 9'000u);
    }
  }
}

// A class histogram is an event per class at its time; the histogram view takes the last one
// of the selection, the growth view the last minus the first, each class by its frame.
TEST(TraceEvents, ClassHistogramsAreEventsPerClassAndTheirGrowth) {
  TempDir dir;
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir.file("histo.ssr")));
  writeTestInfo(w, "cpu", 0, 1);
  const uint32_t name_a = w.internString("A"), name_b = w.internString("byte[]"), empty = w.internString("");
  w.writeMethod({1, empty, name_a, empty, 0, {}});
  w.writeMethod({2, empty, name_b, empty, 0, {}});
  const format::Frame a{1, -1}, b{2, -1};
  const uint32_t stack_a = w.internStack(&a, 1), stack_b = w.internStack(&b, 1);
  w.writeClassHistogram({100, 5, {{stack_a, 10, 160}, {stack_b, 3, 3000}}});
  w.writeClassHistogram({200, 6, {{stack_a, 25, 400}, {stack_b, 1, 1000}}});
  w.writeClassHistogram({300, 7, {{stack_a, 40, 640}}});
  ASSERT_TRUE(w.finish(400));

  const Recording r = loadRecording(dir.file("histo.ssr"));
  ASSERT_EQ(r.histograms.size(), 3u);
  const EventScope scope{EventKind::Histogram, &defaultMetric(EventKind::Histogram), {}};
  EXPECT_EQ(defaultMetric(EventKind::Histogram).name, std::string("bytes"));
  const HistogramStats last = computeHistogramStats(r, scope, false);
  ASSERT_EQ(last.points.size(), 3u);
  EXPECT_EQ(last.to.time_ns, 300);
  EXPECT_EQ(last.to.pause_ns, 7);
  ASSERT_EQ(last.classes.size(), 1u);
  EXPECT_EQ(last.classes[0].class_name, "A");
  EXPECT_EQ(last.classes[0].instances, 40u);
  EXPECT_EQ(last.classes[0].bytes, 640u);

  // The first two only: what --from/--to do, as a predicate on the events.
  const EventScope early{EventKind::Histogram, scope.metric, [](const Event& e) { return e.time_ns < 250; }};
  const HistogramStats growth = computeHistogramStats(r, early, true);
  EXPECT_EQ(growth.from.time_ns, 100);
  EXPECT_EQ(growth.to.time_ns, 200);
  ASSERT_EQ(growth.classes.size(), 2u);
  EXPECT_EQ(growth.classes[0].class_name, "A");  // most bytes grown first
  EXPECT_EQ(growth.classes[0].instancesGrowth(), 15);
  EXPECT_EQ(growth.classes[0].bytesGrowth(), 240);
  EXPECT_EQ(growth.classes[1].class_name, "byte[]");
  EXPECT_EQ(growth.classes[1].instancesGrowth(), -2);
  EXPECT_EQ(growth.classes[1].bytesGrowth(), -2000);
  EXPECT_EQ(growth.total.instancesGrowth(), 13);
}

}  // namespace
}  // namespace stackscope::analysis

// Time samples folded per stack while loading (SampleRows::Folded) give every per-stack sum the
// rows give: for each kind and metric, whole and in a window, on any number of threads; the
// other events keep their rows, and what needs a row refuses a folded kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "analysis/load.h"
#include "analysis/method_stats.h"
#include "analysis/selection_notes.h"
#include "analysis/stack_counts.h"
#include "fixture.h"
#include "format/writer.h"
#include "kinds_fixture.h"

namespace stackscope::analysis {
namespace {

using namespace stackscope::testing;

constexpr int kChunks = 30;
constexpr int kSamplesPerChunk = 20;

// Per chunk: cpu samples on two stacks and, one in four, on a stack the file never defines;
// wall samples of a second thread, some of weight 3; every third cpu sample carries CPU time
// (sample index + 1 µs), every fifth allocated bytes; an alloc event and a collection.
void writeMixedRecording(const std::string& path) {
  format::RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  format::RecordingInfo info;
  info.mode = "cpu,wall";
  info.interval_ns = kMs;
  info.sample_metrics = format::kSampleCpuTime | format::kSampleAllocBytes;
  w.writeInfo(info);
  w.writeMethod({1, w.internString("app.A"), w.internString("run"), w.internString("()V"), 0, {}});
  w.writeMethod({2, w.internString("app.B"), w.internString("work"), w.internString("()V"), 0, {}});
  w.writeThread({1, "one", 11, 1});
  w.writeThread({2, "two", 12, 2});
  const format::Frame frames[] = {{2, 0}, {1, 0}};
  const uint32_t deep = w.internStack(frames, 2), shallow = w.internStack(&frames[1], 1);
  const uint32_t undefined = 999;
  const uint32_t bytes_class = w.internString("byte[]");
  int64_t t = 0;
  int sample = 0;
  for (int chunk = 0; chunk < kChunks; ++chunk) {
    for (int i = 0; i < kSamplesPerChunk; ++i, ++sample, t += kMs) {
      format::SampleRecord cpu{t, 1, sample % 4 == 3 ? undefined : (sample % 2 ? deep : shallow), format::ThreadState::Running};
      if (sample % 3 == 0) cpu.cpu_us = static_cast<uint64_t>(sample) + 1;
      if (sample % 5 == 0) cpu.alloc_bytes = 4096;
      w.writeSample(cpu);
      format::SampleRecord wall{t, 2, deep, format::ThreadState::Sleeping, sample % 7 == 0 ? 3u : 1u};
      wall.kind = format::SampleKind::Wall;
      w.writeSample(wall);
    }
    w.writeAlloc({t - kMs / 2, 1, deep, bytes_class, 64, 512 * 1024});
    w.writeGc({t - kMs / 3, 1000 + chunk, 0, 0});
    if (!w.flush()) throw std::runtime_error(w.lastError());
  }
  if (!w.finish(t)) throw std::runtime_error(w.lastError());
}

void expectSameSums(const Recording& kept, const Recording& folded, const std::string& what) {
  EXPECT_EQ(kept.kinds_seen, folded.kinds_seen) << what;
  EXPECT_EQ(kept.eventKinds(), folded.eventKinds()) << what;
  EXPECT_EQ(kept.warnings, folded.warnings) << what;
  EXPECT_EQ(kept.threads.size(), folded.threads.size()) << what;
  for (const EventKindInfo& kind : eventKinds()) {
    for (const MetricInfo& metric : kind.metrics) {
      const EventScope scope{kind.kind, &metric, {}};
      const StackValues a = valuesByStack(kept, scope), b = valuesByStack(folded, scope);
      const std::string which = what + ", " + kind.name + " in " + metric.name;
      EXPECT_EQ(a.by_stack, b.by_stack) << which;
      EXPECT_EQ(a.samples_by_stack, b.samples_by_stack) << which;
      EXPECT_EQ(a.totals.samples, b.totals.samples) << which;
      EXPECT_EQ(a.totals.value, b.totals.value) << which;
    }
  }
}

TEST(FoldedSamples, GiveTheSumsPerStackOfTheRows) {
  TempDir dir;
  writeMixedRecording(dir.file("mixed.ssr"));
  writeKindsRecording(dir.file("kinds.ssr"));
  writeReferenceRecording(dir.file("ref.ssr"));
  writeReferenceRecording(dir.file("unfinished.ssr"), false);
  for (const char* file : {"mixed.ssr", "kinds.ssr", "ref.ssr", "unfinished.ssr"}) {
    for (const TimeWindow window : {TimeWindow{}, TimeWindow{25 * kMs + 1, 333 * kMs}, TimeWindow{900 * kMs, 901 * kMs}}) {
      const Recording kept = loadRecording(dir.file(file), window, 1);
      for (size_t threads : {1, 2, 3})
        expectSameSums(kept, loadRecording(dir.file(file), window, threads, SampleRows::Folded),
                       std::string(file) + " from " + std::to_string(window.from_ns) + " on " + std::to_string(threads) + " threads");
    }
  }
}

// Known by construction: the mixed recording's totals, and its alloc and gc events as rows.
TEST(FoldedSamples, KeepTheOtherEventsAsRows) {
  TempDir dir;
  writeMixedRecording(dir.file("mixed.ssr"));
  const Recording folded = loadRecording(dir.file("mixed.ssr"), {}, 2, SampleRows::Folded);
  ASSERT_EQ(folded.events.size(), size_t{2 * kChunks});  // one alloc and one collection per chunk
  for (const Event& event : folded.events) EXPECT_TRUE(event.kind == EventKind::Alloc || event.kind == EventKind::Gc);
  constexpr int kSamples = kChunks * kSamplesPerChunk;
  uint64_t cpu_ns = 0, wall_samples = 0, alloc_bytes = 0;
  for (int s = 0; s < kSamples; ++s) {
    if (s % 3 == 0) cpu_ns += (static_cast<uint64_t>(s) + 1) * 1000;
    if (s % 5 == 0) alloc_bytes += 4096;
    wall_samples += s % 7 == 0 ? 3 : 1;
  }
  const auto total = [&](EventKind kind, const char* metric) {
    return valuesByStack(folded, {kind, findMetric(kind, metric), {}}).totals;
  };
  EXPECT_EQ(total(EventKind::Cpu, "samples").samples, uint64_t{kSamples});
  EXPECT_EQ(total(EventKind::Cpu, "cpu-time").value, cpu_ns);
  EXPECT_EQ(total(EventKind::Cpu, "alloc-bytes").value, alloc_bytes);
  EXPECT_EQ(total(EventKind::Wall, "samples").samples, wall_samples);
  EXPECT_EQ(total(EventKind::Alloc, "objects").samples, uint64_t{kChunks});
  // The samples on the undefined stack count without frames, and are told as in a kept load.
  EXPECT_EQ(valuesByStack(folded, {EventKind::Cpu, findMetric(EventKind::Cpu, "samples"), {}}).by_stack[0], uint64_t{kSamples / 4});
  const std::string missing = std::to_string(kSamples / 4) + " samples refer to stack traces missing";
  EXPECT_TRUE(std::any_of(folded.warnings.begin(), folded.warnings.end(),
                          [&](const std::string& w) { return w.find(missing) != std::string::npos; }));
}

// A folded kind has no rows: visiting them, or narrowing them by a predicate, is refused, not
// answered with nothing.
TEST(FoldedSamples, RefuseWhatNeedsRows) {
  TempDir dir;
  writeKindsRecording(dir.file("kinds.ssr"));
  const Recording folded = loadRecording(dir.file("kinds.ssr"), {}, 1, SampleRows::Folded);
  const EventScope cpu{EventKind::Cpu, &defaultMetric(EventKind::Cpu), {}};
  EXPECT_THROW(forEachEvent(folded, cpu, [](const Event&, uint64_t) {}), std::logic_error);
  const EventScope narrowed{EventKind::Cpu, &defaultMetric(EventKind::Cpu), [](const Event&) { return true; }};
  EXPECT_THROW(valuesByStack(folded, narrowed), std::logic_error);
  EXPECT_EQ(computeMethodStats(folded, cpu, false).totals.samples, kCpuSamples);
}

// The notes of an empty selection do not depend on the rows: a window with no sample says so.
TEST(FoldedSamples, TellAnEmptySelectionAsRowsDo) {
  TempDir dir;
  writeKindsRecording(dir.file("kinds.ssr"));
  Selection selection;
  selection.resource.elements = {ResourceElement{ResourceType::Methods, {}}};
  for (const TimeWindow window : {TimeWindow{}, TimeWindow{41 * kMs, 45 * kMs}}) {
    selection.intervals = {window};
    const Recording kept = loadRecording(dir.file("kinds.ssr"), window);
    const Recording folded = loadRecording(dir.file("kinds.ssr"), window, 0, SampleRows::Folded);
    for (const EventKind kind : {EventKind::Cpu, EventKind::Wall})
      EXPECT_EQ(selectionNotes(selection, kept, kind), selectionNotes(selection, folded, kind)) << window.from_ns;
  }
  selection.intervals = {TimeWindow{41 * kMs, 45 * kMs}};
  const Recording folded = loadRecording(dir.file("kinds.ssr"), selection.intervals.front(), 0, SampleRows::Folded);
  EXPECT_EQ(selectionNotes(selection, folded, EventKind::Cpu).size(), 1u);  // no cpu sample after 20ms
}

}  // namespace
}  // namespace stackscope::analysis

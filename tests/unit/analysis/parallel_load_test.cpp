// Event chunks decoded on several threads build the very model a sequential read builds:
// same events in the same order, statuses, losses, thread starts and ends, carriers,
// warnings, end and bytes read, whatever the number of threads, the window, or a file that
// did not finish.
#include <gtest/gtest.h>

#include <tuple>

#include "analysis/event_decoder.h"
#include "analysis/load.h"
#include "analysis/stack_counts.h"
#include "fixture.h"
#include "format/reader.h"
#include "format/writer.h"
#include "kinds_fixture.h"

namespace stackscope::analysis {
namespace {

using namespace stackscope::testing;

// `chunks` small chunks; each chunk's first sample is a little earlier than the previous chunk's
// last (an inversion across a boundary, which a split between two threads can fall on);
// wall samples beside cpu ones; a virtual thread on two carriers; threads that start and end;
// collections (a duration and two labels each) written after the samples, earlier in time.
void writeManyChunks(const std::string& path, int chunks) {
  format::RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  writeTestInfo(w, "cpu,wall", 0, 9);
  w.writeMethod({1, w.internString("app.A"), w.internString("run"), w.internString("()V"), 0, {}});
  format::ThreadRecord virtual_thread{3, "", 0, 30};
  virtual_thread.is_virtual = true;
  w.writeThread({1, "one", 11, 1});
  w.writeThread({2, "two", 12, 2});
  w.writeThread(virtual_thread);
  const format::Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  const uint32_t young = w.internString("young"), cause = w.internString("Allocation Failure");
  int64_t t = 0;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    t -= 2 * kMs;  // earlier than the last sample of the chunk before
    w.writeThreadStart({t, static_cast<uint32_t>(1 + chunk % 2)});
    for (int i = 0; i < 25; ++i, t += kMs) {
      w.writeSample({t, static_cast<uint32_t>(1 + i % 2), stack, format::ThreadState::Running, static_cast<uint32_t>(1 + i % 3)});
      format::SampleRecord wall{t, 3, stack, format::ThreadState::Parked, 1, 0, static_cast<uint32_t>(1 + chunk % 2)};
      wall.kind = format::SampleKind::Wall;
      w.writeSample(wall);
    }
    w.writeGc({t - 5 * kMs, 1000 + chunk, chunk % 3 ? young : 0, chunk % 2 ? cause : 0});
    w.writeStatus({t, static_cast<uint32_t>(chunk), 0, 0, 1, 2, 3});
    w.writeLost({t, chunk % 2 ? format::LostReason::NotWalkable : format::LostReason::BufferFull, 1});
    w.writeThreadEnd({t, static_cast<uint32_t>(1 + chunk % 2)});
    if (!w.flush()) throw std::runtime_error(w.lastError());
  }
  if (!w.finish(t)) throw std::runtime_error(w.lastError());
}

void expectSameModel(const Recording& a, const Recording& b, const std::string& what) {
  ASSERT_EQ(a.events.size(), b.events.size()) << what;
  for (size_t i = 0; i < a.events.size(); ++i) {
    const Event &x = a.events[i], &y = b.events[i];
    ASSERT_EQ(std::make_tuple(x.time_ns, x.thread, x.stack, x.state, uint32_t{x.weight}, uint32_t{x.annotation}, x.kind),
              std::make_tuple(y.time_ns, y.thread, y.stack, y.state, uint32_t{y.weight}, uint32_t{y.annotation}, y.kind))
        << what << ", event " << i;
  }
  EXPECT_EQ(a.kinds_seen, b.kinds_seen) << what;
  EXPECT_EQ(a.amounts, b.amounts) << what;
  EXPECT_EQ(a.labels, b.labels) << what;
  ASSERT_EQ(a.statuses.size(), b.statuses.size()) << what;
  for (size_t i = 0; i < a.statuses.size(); ++i) EXPECT_EQ(a.statuses[i].time_ns, b.statuses[i].time_ns) << what;
  EXPECT_EQ(a.lost, b.lost) << what;
  ASSERT_EQ(a.threads.size(), b.threads.size()) << what;
  for (size_t i = 0; i < a.threads.size(); ++i) {
    EXPECT_EQ(a.threads[i].start_ns, b.threads[i].start_ns) << what << ", thread " << i;
    EXPECT_EQ(a.threads[i].end_ns, b.threads[i].end_ns) << what << ", thread " << i;
    EXPECT_EQ(a.threads[i].carriers, b.threads[i].carriers) << what << ", thread " << i;
  }
  EXPECT_EQ(a.warnings, b.warnings) << what;
  EXPECT_EQ(a.ended, b.ended) << what;
  EXPECT_EQ(a.end_ns, b.end_ns) << what;
  EXPECT_EQ(a.bytes_read, b.bytes_read) << what;
}

TEST(ParallelLoad, AnyNumberOfThreadsBuildsTheSequentialModel) {
  TempDir dir;
  writeManyChunks(dir.file("many.ssr"), 40);
  writeManyChunks(dir.file("two.ssr"), 2);  // on two threads, the one inversion falls between them
  writeReferenceRecording(dir.file("ref.ssr"));
  writeReferenceRecording(dir.file("unfinished.ssr"), false);
  writeKindsRecording(dir.file("kinds.ssr"));
  for (const char* file : {"many.ssr", "two.ssr", "ref.ssr", "unfinished.ssr", "kinds.ssr"}) {
    for (const TimeWindow window : {TimeWindow{}, TimeWindow{10 * kMs, 300 * kMs}}) {
      const Recording sequential = loadRecording(dir.file(file), window, 1);
      for (size_t threads : {2, 3, 7})
        expectSameModel(sequential, loadRecording(dir.file(file), window, threads),
                        std::string(file) + " on " + std::to_string(threads) + " threads from " + std::to_string(window.from_ns));
    }
  }
  const Recording many = loadRecording(dir.file("many.ssr"), {}, 3);
  EXPECT_EQ(many.threads[3].carriers, (std::vector<uint32_t>{1, 2}));
  for (size_t i = 1; i < many.events.size(); ++i) ASSERT_LE(many.events[i - 1].time_ns, many.events[i].time_ns) << i;
  // The collections kept their columns through the merge and the time sort.
  uint64_t gcs = 0;
  for (size_t i = 0; i < many.events.size(); ++i) {
    if (many.events[i].kind != EventKind::Gc) continue;
    const uint64_t chunk = many.amounts[0][i] - 1000;
    EXPECT_EQ(many.string(many.label(many.events[i], Label::Collector)), chunk % 3 ? "young" : "") << i;
    EXPECT_EQ(many.string(many.label(many.events[i], Label::Cause)), chunk % 2 ? "Allocation Failure" : "") << i;
    ++gcs;
  }
  EXPECT_EQ(gcs, 40u);
}

// Runs whose chunks hold more events than their regions of the table were sized for (a file
// whose record counts are too low, or more events than the table is sized for up front) keep
// the rest apart and merge them in place: the model is still the sequential one.
TEST(ParallelLoad, EventsBeyondTheirRegionsAreMergedInOrder) {
  TempDir dir;
  writeManyChunks(dir.file("many.ssr"), 12);
  const Recording sequential = loadRecording(dir.file("many.ssr"), {}, 1);
  Recording model = loadMapData(dir.file("many.ssr"));
  model.window = {};
  format::RecordingReader reader(dir.file("many.ssr"));
  std::vector<format::ChunkInfo> chunks;
  for (const format::ChunkInfo& chunk : reader.plan(0, TimeWindow::kOpen))
    if (chunk.kind == format::ChunkKind::Event) chunks.push_back(chunk);
  ASSERT_EQ(chunks.size(), 13u);  // and the one with the recording's end
  // Three runs of four chunks or more (about 55 events each), with regions of 0, 7 and 30 entries.
  const std::vector<size_t> runs{0, 4, 8, chunks.size()};
  const std::vector<size_t> regions{0, 0, 7, 37};
  model.events.resize(regions.back());
  std::vector<DecodedEvents> decoded;  // every run, before any is merged (as load.cpp does)
  for (size_t run = 0; run < 3; ++run) {
    EventDecoder decoder(model, model.window, model.events, regions[run], regions[run + 1]);
    for (size_t i = runs[run]; i < runs[run + 1]; ++i) reader.readChunk(chunks[i], decoder);
    decoded.push_back(decoder.take());
    EXPECT_FALSE(decoded.back().spilled.empty()) << run;
  }
  DecodedEvents totals;
  for (DecodedEvents& run : decoded) mergeEvents(model, std::move(run), totals);
  finishEvents(model, totals);
  ASSERT_EQ(model.events.size(), sequential.events.size());
  for (size_t i = 0; i < model.events.size(); ++i) {
    const Event &x = model.events[i], &y = sequential.events[i];
    ASSERT_EQ(std::make_tuple(x.time_ns, x.thread, x.stack, x.state, uint32_t{x.weight}, uint32_t{x.annotation}, x.kind),
              std::make_tuple(y.time_ns, y.thread, y.stack, y.state, uint32_t{y.weight}, uint32_t{y.annotation}, y.kind))
        << "event " << i;
  }
  EXPECT_EQ(model.kinds_seen, sequential.kinds_seen);
  EXPECT_EQ(model.amounts, sequential.amounts);
  EXPECT_EQ(model.labels, sequential.labels);
  EXPECT_EQ(model.lost, sequential.lost);
}

// The per-stack sums split among threads (each over its own part of the events) add up to
// the one-thread sums: every kind and metric of two recordings, whatever the number of parts.
TEST(ParallelSums, AnyNumberOfThreadsGivesTheOneThreadValuesByStack) {
  TempDir dir;
  writeManyChunks(dir.file("many.ssr"), 40);
  writeKindsRecording(dir.file("kinds.ssr"));
  for (const char* file : {"many.ssr", "kinds.ssr"}) {
    const Recording recording = loadRecording(dir.file(file));
    size_t compared = 0;
    for (const EventKindInfo& kind : eventKinds()) {
      for (const MetricInfo& metric : kind.metrics) {
        const EventScope scope{kind.kind, &metric, {}};
        const StackValues one = valuesByStack(recording, scope, 1);
        compared += one.totals.samples;
        for (size_t threads : {2, 3, 7}) {
          const StackValues many = valuesByStack(recording, scope, threads);
          const std::string what = std::string(file) + " " + kind.name + " " + metric.name + " on " + std::to_string(threads);
          EXPECT_EQ(many.by_stack, one.by_stack) << what;
          EXPECT_EQ(many.samples_by_stack, one.samples_by_stack) << what;
          EXPECT_EQ(many.totals.samples, one.totals.samples) << what;
          EXPECT_EQ(many.totals.value, one.totals.value) << what;
        }
      }
    }
    EXPECT_GT(compared, 0u) << file;  // the recordings have events of the kinds compared
  }
}

}  // namespace
}  // namespace stackscope::analysis

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>

#include "recording_fixture.h"

namespace stackscope::format {
namespace {

using testing::Collector;
using testing::tempPath;

TEST(FormatRoundTrip, EveryRecordComesBackAsWritten) {
  const std::string path = tempPath("roundtrip.ssr");
  testing::writeSmallRecording(path);
  RecordingReader reader(path);
  EXPECT_TRUE(reader.indexed());
  EXPECT_TRUE(reader.warnings().empty());
  EXPECT_EQ(reader.header().version, kFormatVersion);
  EXPECT_EQ(reader.header().oldest_reader, kOldestReaderVersion);
  EXPECT_EQ(reader.header().features, uint32_t{kFeatureZstdChunks | kFeatureStackBranches | kFeatureLaneChecksums | kFeatureSampleRuns | kFeatureLineDeltas});

  Collector c;
  reader.read(c);
  ASSERT_EQ(c.infos.size(), 1u);
  EXPECT_EQ(c.infos[0].mode, "cpu");
  EXPECT_EQ(c.infos[0].interval_ns, 10000000);
  EXPECT_EQ(c.infos[0].pid, 4242);
  EXPECT_EQ(c.infos[0].jvm, "Test VM 17");
  ASSERT_EQ(c.methods.size(), 2u);
  EXPECT_EQ(c.strings[c.methods[0].class_name], "pkg.Main$Inner");
  EXPECT_EQ(c.strings[c.methods[0].method_name], "run");
  EXPECT_EQ(c.strings[c.methods[0].source_file], "Main.java");
  ASSERT_EQ(c.methods[0].lines.size(), 2u);
  EXPECT_EQ(c.methods[0].lines[1].bci, 5u);
  EXPECT_EQ(c.methods[0].lines[1].line, 11u);
  EXPECT_EQ(c.methods[1].source_file, 0u);
  ASSERT_EQ(c.samples.size(), 30u);
  ASSERT_EQ(c.stacks.size(), 10u);  // ten distinct stacks, each stored once across flushes
  EXPECT_EQ(c.stacks[3].frames[0], (Frame{2, 3}));
  EXPECT_EQ(c.samples[29].time_ns, 300000000);
  EXPECT_EQ(c.samples[12].stack, c.samples[2].stack);
  ASSERT_EQ(c.statuses.size(), 3u);
  EXPECT_EQ(c.statuses[0].heap_committed, 4u << 20);
  EXPECT_EQ(c.statuses[0].live_threads, 7u);
  ASSERT_EQ(c.losts.size(), 3u);
  EXPECT_EQ(c.losts[0].reason, LostReason::GcActive);
  ASSERT_EQ(c.endings.size(), 1u);
  EXPECT_EQ(c.endings[0].time_ns, 300000001);
  EXPECT_EQ(c.starts.size(), 3u);
  std::remove(path.c_str());
}

// The control server's dump: a copy of a recording still being written is a recording of its
// own (indexed, no warnings) holding every record written so far, and the original goes on.
TEST(FormatRoundTrip, CopyOfAnUnfinishedRecordingReadsOnItsOwn) {
  const std::string path = tempPath("copied-from.ssr");
  const std::string copy = tempPath("copy.ssr");
  RecordingWriter writer;
  ASSERT_TRUE(writer.open(path));
  RecordingInfo info;
  info.mode = "cpu";
  writer.writeInfo(info);
  ThreadRecord thread;
  thread.id = 1;
  thread.name = "main";
  writer.writeThread(thread);
  const Frame frame{1, 0};
  writer.writeMethod({1, writer.internString("Main"), writer.internString("run"), 0, 0, {}});
  const uint32_t stack = writer.internStack(&frame, 1);
  for (int i = 0; i < 5; ++i) writer.writeSample({i * 1'000'000, 1, stack});
  ASSERT_TRUE(writer.flush());
  writer.writeMarker({5'000'000, 0, MarkerKind::Point, writer.internString("half")});
  for (int i = 5; i < 8; ++i) writer.writeSample({i * 1'000'000, 1, stack});  // pending, not flushed
  std::string error;
  // Not into a directory, nor a FIFO nobody reads (that would block the writer forever).
  EXPECT_FALSE(writer.copyTo(std::filesystem::temp_directory_path().string(), error));
  const std::string fifo = tempPath("copy.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(writer.copyTo(fifo, error));
  std::remove(fifo.c_str());
  ASSERT_TRUE(writer.copyTo(copy, error)) << error;
  for (int i = 8; i < 10; ++i) writer.writeSample({i * 1'000'000, 1, stack});
  ASSERT_TRUE(writer.finish(10'000'000));

  RecordingReader copied(copy);
  EXPECT_TRUE(copied.indexed());
  EXPECT_TRUE(copied.warnings().empty());
  Collector c;
  copied.read(c);
  EXPECT_EQ(c.samples.size(), 8u);
  EXPECT_EQ(c.markers.size(), 1u);
  EXPECT_TRUE(c.endings.empty());  // the recording had not ended
  RecordingReader original(path);
  Collector all;
  original.read(all);
  EXPECT_EQ(all.samples.size(), 10u);
  EXPECT_EQ(all.endings.size(), 1u);
  std::remove(path.c_str());
  std::remove(copy.c_str());
}

TEST(FormatRoundTrip, TimeWindowSkipsChunksOutsideIt) {
  const std::string path = tempPath("window.ssr");
  testing::writeSmallRecording(path, 5);  // event chunks cover 0-100ms, 100-200ms, ...
  RecordingReader reader(path);
  Collector c;
  reader.read(c, 210000000, 290000000);
  EXPECT_EQ(c.samples.size(), 10u);  // only the third chunk
  EXPECT_EQ(c.methods.size(), 2u);   // map chunks are always read
  EXPECT_LT(reader.bytesRead(), reader.fileSize());
  std::remove(path.c_str());
}

TEST(FormatRoundTrip, WindowOfALongRecordingReadsLittleOfTheIndex) {
  const std::string path = tempPath("long.ssr");
  testing::writeSmallRecording(path, 2000);  // 2000 event chunks of 100ms each
  RecordingReader reader(path);
  Collector c;
  reader.read(c, 100 * 100000000LL + 1, 101 * 100000000LL - 1);  // inside chunk 100 only
  EXPECT_EQ(c.samples.size(), 10u);
  EXPECT_EQ(c.samples.front().time_ns, 100 * 100000000LL + 10000000);
  EXPECT_TRUE(reader.warnings().empty());
  // Far less than the index alone (2000 entries of 41 bytes): a binary search, not a read.
  EXPECT_LT(reader.bytesRead(), 2000u * 41 / 4) << reader.bytesRead();
  const auto& all = reader.chunks();  // all of them when asked
  EXPECT_EQ(std::count_if(all.begin(), all.end(), [](const ChunkInfo& c) { return c.kind == ChunkKind::Event; }), 2001);  // + RecordingEnd
  std::remove(path.c_str());
}

TEST(FormatRoundTrip, SampleWeightIsOptionalAndKept) {
  const std::string path = tempPath("weight.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  const Frame frame{1, 0};
  w.writeSample({5, 1, w.internStack(&frame, 1), ThreadState::Sleeping, 7});
  w.writeSample({6, 1, w.internStack(&frame, 1), ThreadState::Blocked, 1});
  ASSERT_TRUE(w.finish(7));
  EXPECT_EQ(w.samplesWritten(), 8u);
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].weight, 7u);
  EXPECT_EQ(c.samples[0].state, ThreadState::Sleeping);
  EXPECT_EQ(c.samples[1].weight, 1u);
  std::remove(path.c_str());
}

// Per-thread metric deltas are trailing fields: a sample that carries them also writes the
// defaults before them, one that carries none is written as before; the info lists them, and
// a file without the info's field (older writers) lists none.
TEST(FormatRoundTrip, SampleMetricDeltasAreOptionalAndKept) {
  const std::string path = tempPath("metrics.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  RecordingInfo info;
  info.mode = "wall";
  info.sample_metrics = kSampleCpuTime | kSampleAllocBytes;
  w.writeInfo(info);
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  SampleRecord busy{5, 1, stack, ThreadState::Running};
  busy.cpu_us = 10'003;
  busy.alloc_bytes = uint64_t{1} << 40;
  w.writeSample(busy);
  w.writeSample({6, 2, stack, ThreadState::Sleeping, 3});  // an idle thread's: none
  SampleRecord cpu_only{7, 1, stack, ThreadState::Running, 1, 4};
  cpu_only.cpu_us = 1;
  w.writeSample(cpu_only);
  ASSERT_TRUE(w.finish(8));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.infos.size(), 1u);
  EXPECT_EQ(c.infos[0].sample_metrics, uint32_t{kSampleCpuTime | kSampleAllocBytes});
  EXPECT_EQ(sampleMetricNames(c.infos[0].sample_metrics), (std::vector<std::string>{"cpu-time", "alloc-bytes"}));
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[0].cpu_us, 10'003u);
  EXPECT_EQ(c.samples[0].alloc_bytes, uint64_t{1} << 40);
  EXPECT_EQ(c.samples[0].weight, 1u);
  EXPECT_EQ(c.samples[1].cpu_us, 0u);
  EXPECT_EQ(c.samples[1].alloc_bytes, 0u);
  EXPECT_EQ(c.samples[1].weight, 3u);
  EXPECT_EQ(c.samples[2].cpu_us, 1u);
  EXPECT_EQ(c.samples[2].alloc_bytes, 0u);
  EXPECT_EQ(c.samples[2].annotation, 4u);
  std::remove(path.c_str());

  RecordingWriter old;
  ASSERT_TRUE(old.open(path));
  old.writeInfo(RecordingInfo{});
  ASSERT_TRUE(old.finish(0));
  RecordingReader old_reader(path);
  Collector old_c;
  old_reader.read(old_c);
  ASSERT_EQ(old_c.infos.size(), 1u);
  EXPECT_EQ(old_c.infos[0].sample_metrics, 0u);
  std::remove(path.c_str());
}

// A native frame's module, build id and address are trailing fields of its Method record, and
// the boot id a trailing field of the info: written only when there are some, so a Java
// method's record and an info without a boot id are as older writers wrote them, and read back
// with none.
TEST(FormatRoundTrip, NativeFrameAddressesAndTheBootIdAreOptionalAndKept) {
  const std::string path = tempPath("native.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  RecordingInfo info;
  info.mode = "cpu";
  info.boot_id = "0f4a1c2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
  w.writeInfo(info);
  MethodRecord native{1, w.internString(""), w.internString("libjvm.so+0x5a3c10"), w.internString(""),
                      w.internString("libjvm.so"), {}};
  native.native_module = w.internString("/usr/lib/jvm/lib/server/libjvm.so");
  native.native_build_id = w.internString("89ab");
  native.native_address = 0x5a3c10;
  w.writeMethod(native);
  w.writeMethod({2, w.internString("pkg.Main"), w.internString("run"), w.internString("()V"), 0, {{0, 10}}});
  ASSERT_TRUE(w.finish(1));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.infos.size(), 1u);
  EXPECT_EQ(c.infos[0].boot_id, info.boot_id);
  EXPECT_EQ(c.infos[0].sample_metrics, 0u);
  ASSERT_EQ(c.methods.size(), 2u);
  EXPECT_EQ(c.strings[c.methods[0].native_module], "/usr/lib/jvm/lib/server/libjvm.so");
  EXPECT_EQ(c.strings[c.methods[0].native_build_id], "89ab");
  EXPECT_EQ(c.methods[0].native_address, 0x5a3c10u);
  EXPECT_EQ(c.strings[c.methods[0].method_name], "libjvm.so+0x5a3c10") << "what an older reader shows";
  EXPECT_EQ(c.methods[1].native_module, 0u);
  ASSERT_EQ(c.methods[1].lines.size(), 1u);
  EXPECT_EQ(c.methods[1].lines[0].line, 10u);
  std::remove(path.c_str());
}

// A recording of several modes: a sample of the mode's kind stays a plain Sample record; one
// of another sampler is a KindSample record that names it and keeps every other field.
TEST(FormatRoundTrip, SamplesOfAnotherSamplerNameTheirKind) {
  const std::string path = tempPath("kinds.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  w.writeSample({5, 1, stack, ThreadState::Running, 2, 3});
  SampleRecord wall{9, 1, stack, ThreadState::Sleeping, 4, 3, 0};
  wall.kind = SampleKind::Wall;
  w.writeSample(wall);
  w.writeSample({6, 1, stack, ThreadState::Running, 1});  // its time is a delta from 5, not from 9
  ASSERT_TRUE(w.finish(10));
  EXPECT_EQ(w.samplesWritten(), 7u);
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.samples.size(), 3u);
  EXPECT_EQ(c.samples[2].time_ns, 6);
  EXPECT_EQ(c.samples[2].kind, SampleKind::Mode);
  EXPECT_EQ(c.samples[0].kind, SampleKind::Mode);
  EXPECT_EQ(c.samples[0].weight, 2u);
  EXPECT_EQ(c.samples[1].kind, SampleKind::Wall);
  EXPECT_EQ(c.samples[1].time_ns, 9);
  EXPECT_EQ(c.samples[1].state, ThreadState::Sleeping);
  EXPECT_EQ(c.samples[1].weight, 4u);
  EXPECT_EQ(c.samples[1].annotation, 3u);
  EXPECT_TRUE(c.unknowns.empty());
  std::remove(path.c_str());
}

// The traces' records keep their fields, and their times do not move the running time: the
// sample after them is a delta from the sample before, as a reader that skips them expects.
TEST(FormatRoundTrip, GcAndExceptionRecordsKeepFieldsAndLeaveTheRunningTime) {
  const std::string path = tempPath("traces.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  const uint32_t collector = w.internString("Serial full collection");
  const uint32_t cause = w.internString("System.gc()");
  w.writeSample({50, 1, stack, ThreadState::Running, 1});
  w.writeGc({20, 7000, collector, cause});
  w.writeException({90, 1, stack, 3});
  w.writeException({95, 1, stack, 0});
  w.writeSample({60, 1, stack, ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(100));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[1].time_ns, 60);
  ASSERT_EQ(c.gcs.size(), 1u);
  EXPECT_EQ(c.gcs[0].time_ns, 20);
  EXPECT_EQ(c.gcs[0].duration_ns, 7000);
  EXPECT_EQ(c.strings[c.gcs[0].collector], "Serial full collection");
  EXPECT_EQ(c.strings[c.gcs[0].cause], "System.gc()");
  ASSERT_EQ(c.exceptions.size(), 2u);
  EXPECT_EQ(c.exceptions[0].time_ns, 90);
  EXPECT_EQ(c.exceptions[0].thread, 1u);
  EXPECT_EQ(c.exceptions[0].stack, stack);
  EXPECT_EQ(c.exceptions[0].annotation, 3u);
  EXPECT_EQ(c.exceptions[1].time_ns, 95);
  EXPECT_EQ(c.exceptions[1].annotation, 0u);
  EXPECT_TRUE(c.unknowns.empty());
  std::remove(path.c_str());
}

// Alloc and ObjectFree the same way; the optional annotation and tag default to 0.
TEST(FormatRoundTrip, AllocAndObjectFreeRecordsKeepFieldsAndLeaveTheRunningTime) {
  const std::string path = tempPath("allocs.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  const uint32_t bytes = w.internString("byte[]");
  w.writeSample({50, 1, stack, ThreadState::Running, 1});
  w.writeAlloc({40, 1, stack, bytes, 1040, 512 * 1024, 0, 0});
  w.writeAlloc({45, 2, stack, bytes, uint64_t{1} << 40, 0, 0, uint64_t{1} << 50});
  w.writeAlloc({47, 2, stack, bytes, 16, 1024, 6, 0});
  w.writeObjectFree({30, uint64_t{1} << 50});
  w.writeSample({60, 1, stack, ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(100));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[1].time_ns, 60);
  ASSERT_EQ(c.allocs.size(), 3u);
  EXPECT_EQ(c.allocs[0].time_ns, 40);
  EXPECT_EQ(c.allocs[0].thread, 1u);
  EXPECT_EQ(c.allocs[0].stack, stack);
  EXPECT_EQ(c.strings[c.allocs[0].class_name], "byte[]");
  EXPECT_EQ(c.allocs[0].size, 1040u);
  EXPECT_EQ(c.allocs[0].interval, 512u * 1024);
  EXPECT_EQ(c.allocs[0].annotation, 0u);
  EXPECT_EQ(c.allocs[0].tag, 0u);
  EXPECT_EQ(c.allocs[1].size, uint64_t{1} << 40);
  EXPECT_EQ(c.allocs[1].interval, 0u);
  EXPECT_EQ(c.allocs[1].tag, uint64_t{1} << 50);
  EXPECT_EQ(c.allocs[2].annotation, 6u);
  EXPECT_EQ(c.allocs[2].tag, 0u);
  ASSERT_EQ(c.frees.size(), 1u);
  EXPECT_EQ(c.frees[0].time_ns, 30);
  EXPECT_EQ(c.frees[0].tag, uint64_t{1} << 50);
  EXPECT_TRUE(c.unknowns.empty());
  std::remove(path.c_str());
}

// A Lock record keeps its fields, the owner's only when known, and leaves the running time.
TEST(FormatRoundTrip, LockRecordsKeepFieldsAndLeaveTheRunningTime) {
  const std::string path = tempPath("locks.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  const Frame owner_frame{2, 5};
  const uint32_t owner_stack = w.internStack(&owner_frame, 1);
  const uint32_t monitor = w.internString("pkg.Cache");
  w.writeSample({50, 1, stack, ThreadState::Running, 1});
  w.writeLock({40, 1, stack, 3, 5'000'000, WaitKind::Lock, monitor, 2, owner_stack});
  w.writeLock({45, 1, stack, 0, 2'000'000, WaitKind::Wait, 0, 0, 0});
  w.writeSample({60, 1, stack, ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(100));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[1].time_ns, 60);
  ASSERT_EQ(c.locks.size(), 2u);
  const LockRecord& lock = c.locks[0];
  EXPECT_EQ(lock.time_ns, 40);
  EXPECT_EQ(lock.thread, 1u);
  EXPECT_EQ(lock.stack, stack);
  EXPECT_EQ(lock.annotation, 3u);
  EXPECT_EQ(lock.duration_ns, 5'000'000);
  EXPECT_EQ(lock.kind, WaitKind::Lock);
  EXPECT_EQ(c.strings[lock.lock_class], "pkg.Cache");
  EXPECT_EQ(lock.owner, 2u);
  EXPECT_EQ(lock.owner_stack, owner_stack);
  const LockRecord& wait = c.locks[1];
  EXPECT_EQ(wait.time_ns, 45);
  EXPECT_EQ(wait.kind, WaitKind::Wait);
  EXPECT_EQ(wait.lock_class, 0u);
  EXPECT_EQ(wait.owner, 0u);
  EXPECT_EQ(wait.owner_stack, 0u);
  EXPECT_TRUE(c.unknowns.empty());
  std::remove(path.c_str());
}

TEST(FormatRoundTrip, VirtualThreadsAndCarriersAreOptionalAndKept) {
  const std::string path = tempPath("virtual.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  ThreadRecord carrier{1, "ForkJoinPool-1-worker-1", 4242, 30};
  ThreadRecord vthread{2, "", 0, 31};
  vthread.is_virtual = true;
  w.writeThread(carrier);
  w.writeThread(vthread);
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  w.writeSample({5, 2, stack, ThreadState::Running, 1, 0, 1});  // the virtual thread, on its carrier
  w.writeSample({6, 1, stack, ThreadState::Parked, 1});          // the carrier on its own
  ASSERT_TRUE(w.finish(7));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.threads.size(), 2u);
  EXPECT_FALSE(c.threads[0].is_virtual);
  EXPECT_TRUE(c.threads[1].is_virtual);
  EXPECT_EQ(c.threads[1].java_id, 31);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].carrier, 1u);
  EXPECT_EQ(c.samples[0].weight, 1u);
  EXPECT_EQ(c.samples[0].annotation, 0u);
  EXPECT_EQ(c.samples[1].carrier, 0u);
  EXPECT_EQ(c.samples[1].state, ThreadState::Parked);
  std::remove(path.c_str());
}

TEST(FormatRoundTrip, AnnotationsAndMarkers) {
  const std::string path = tempPath("annotations.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  AnnotationRecord annotation{3, {}};
  annotation.fields[static_cast<int>(AnnotationField::User)] = w.internString("u1");
  annotation.fields[static_cast<int>(AnnotationField::Component)] = w.internString("käse \xf0\x9f\xa7\x80");
  w.writeAnnotation(annotation);
  w.writeMarker({10, 1, MarkerKind::Begin, w.internString("init")});
  w.writeAnnotationChange({11, 1, 3});
  const Frame frame{1, 0};
  w.writeSample({12, 1, w.internStack(&frame, 1), ThreadState::Running, 1, 3});
  w.writeMarker({20, 1, MarkerKind::End, w.internString("init")});
  ASSERT_TRUE(w.finish(30));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.annotations.size(), 1u);
  EXPECT_EQ(c.annotations[0].id, 3u);
  EXPECT_EQ(c.strings[c.annotations[0].fields[0]], "u1");
  EXPECT_EQ(c.annotations[0].fields[1], 0u);
  EXPECT_EQ(c.strings[c.annotations[0].fields[4]], "käse \xf0\x9f\xa7\x80");
  ASSERT_EQ(c.markers.size(), 2u);
  EXPECT_EQ(c.markers[1].kind, MarkerKind::End);
  EXPECT_EQ(c.strings[c.markers[1].name], "init");
  EXPECT_EQ(c.markers[1].time_ns, 20);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].annotation, 3u);
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].annotation, 3u);
  EXPECT_EQ(c.samples[0].weight, 1u);
  std::remove(path.c_str());
}

TEST(FormatRoundTrip, EventsSlightlyOutOfOrderKeepTheirTimes) {
  const std::string path = tempPath("order.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  for (int64_t t : {100, 90, 300, 250}) w.writeSample({t, 1, stack, ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(400));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[1].time_ns, 90);
  EXPECT_EQ(c.samples[3].time_ns, 250);
  ASSERT_EQ(reader.chunks().size(), 2u);
  EXPECT_EQ(reader.chunks()[1].start_ns, 90);
  EXPECT_EQ(reader.chunks()[1].end_ns, 400);
  std::remove(path.c_str());
}

TEST(FormatRoundTrip, WriterReportsAnUnwritablePath) {
  RecordingWriter w;
  EXPECT_FALSE(w.open("/nonexistent-dir/x.ssr"));
  EXPECT_NE(w.lastError().find("cannot create"), std::string::npos);
}

// A Java method's library is a trailing field after the native ones (written as zeros), so a
// reader that knows only the native fields reads a Java method (native_module 0) and skips it.
TEST(FormatRoundTrip, JavaMethodsCodeSourceIsOptionalAndKept) {
  const std::string path = tempPath("code_source.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  RecordingInfo info;
  info.mode = "cpu";
  w.writeInfo(info);
  MethodRecord sort{1, w.internString("java.util.Arrays"), w.internString("sort"), w.internString("([I)V"), 0, {{0, 7}}};
  sort.code_source = w.internString("java.base");
  w.writeMethod(sort);
  MethodRecord unnamed{2, w.internString("pkg.Main"), w.internString("run"), w.internString("()V"), 0, {}};
  w.writeMethod(unnamed);
  ASSERT_TRUE(w.finish(1));
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.methods.size(), 2u);
  EXPECT_EQ(c.strings[c.methods[0].code_source], "java.base");
  EXPECT_EQ(c.methods[0].native_module, 0u) << "a Java method, not a native address";
  ASSERT_EQ(c.methods[0].lines.size(), 1u);
  EXPECT_EQ(c.methods[0].lines[0].line, 7u);
  EXPECT_EQ(c.methods[1].code_source, 0u);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stackscope::format

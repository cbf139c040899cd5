// Time samples as SampleRun records (33): what comes back is what was written, in order with the
// records between them; files of Sample records read the same; damage is skipped and said.
#include <gtest/gtest.h>

#include "recording_fixture.h"

namespace stackscope::format {
namespace {

using testing::Collector;
using testing::putRecord;
using testing::readHandmade;
using testing::tempPath;

bool sameSample(const SampleRecord& a, const SampleRecord& b) {
  return a.time_ns == b.time_ns && a.thread == b.thread && a.stack == b.stack && a.state == b.state &&
         a.weight == b.weight && a.annotation == b.annotation && a.carrier == b.carrier && a.kind == b.kind &&
         a.cpu_us == b.cpu_us && a.alloc_bytes == b.alloc_bytes;
}

// Sample i of the round trip: every field varies, each optional one first differs from its
// default in the middle of a run (the samples before it in that run get the default).
SampleRecord nthSample(uint32_t i, uint32_t stack) {
  SampleRecord s;
  s.time_ns = 1000 * int64_t{i} - (i % 7 == 3 ? 1500 : 0);  // small inversions are allowed
  s.thread = 1 + i % 3;
  s.stack = stack;
  s.state = static_cast<ThreadState>(i % kThreadStateCount);
  if (i % 50 > 20) s.weight = 1 + i % 4;
  if (i % 50 > 25) s.annotation = 1 + i % 2;
  if (i % 50 > 30) s.carrier = 3;
  if (i % 50 > 35) s.kind = i % 2 ? SampleKind::Cpu : SampleKind::Wall;
  if (i % 50 > 40) s.cpu_us = 1u << (i % 40);  // up to 2^39: varints of several bytes
  if (i % 50 > 45) s.alloc_bytes = 123456789ull * i;
  return s;
}

TEST(SampleRuns, EverySampleComesBackAsWrittenAmongTheOtherRecords) {
  const std::string path = tempPath("runs.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  w.writeInfo({1, "cpu,wall", 1000, 1000000000, 1, "vm", "", {}, kSampleCpuTime | kSampleAllocBytes, ""});
  w.writeMethod({1, w.internString("C"), w.internString("m"), w.internString("()V"), 0, {}});
  for (uint32_t t = 1; t <= 3; ++t) w.writeThread({t, "t" + std::to_string(t), t, t});
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  std::vector<SampleRecord> written;
  size_t gcs = 0, starts = 0;
  for (uint32_t i = 0; i < 1000; ++i) {
    written.push_back(nthSample(i, stack));
    w.writeSample(written.back());
    // Other records end a run; their times must still be right around the runs.
    if (i % 97 == 5) {
      w.writeGc({1000 * int64_t{i} + 10, 5, 0, 0});
      ++gcs;
    }
    if (i % 131 == 7) {
      w.writeThreadStart({1000 * int64_t{i} + 20, 1});
      ++starts;
    }
    if (i % 300 == 299) {
      ASSERT_TRUE(w.flush());
    }
  }
  ASSERT_TRUE(w.finish(2000000));

  std::vector<std::string> warnings;
  const Collector c = readHandmade(path, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();  // record counts included
  ASSERT_EQ(c.samples.size(), written.size());
  for (size_t i = 0; i < written.size(); ++i) EXPECT_TRUE(sameSample(c.samples[i], written[i])) << "sample " << i;
  ASSERT_EQ(c.gcs.size(), gcs);
  for (size_t g = 0; g < gcs; ++g) EXPECT_EQ(c.gcs[g].time_ns % 1000, 10);
  ASSERT_EQ(c.starts.size(), starts);
  for (const ThreadEventRecord& s : c.starts) EXPECT_EQ(s.time_ns % 1000, 20);
  ASSERT_EQ(c.endings.size(), 1u);
  EXPECT_EQ(c.endings[0].time_ns, 2000000);
  RecordingReader reader(path);
  EXPECT_NE(reader.header().features & kFeatureSampleRuns, 0u);
  // A required bit: a reader from before SampleRun refuses the file instead of reading it
  // without samples.
  EXPECT_NE(kFeatureSampleRuns & kRequiredFeatureMask, 0u);
  std::remove(path.c_str());
}

// The body of a run of `samples`, column by column, its times from the running time `last`;
// `columns` adds optional ones by bit.
std::string runBody(const std::vector<SampleRecord>& samples, uint32_t columns = kRunRequiredColumns, int64_t last = 0) {
  std::string body, column[kSampleRunColumns];
  for (const SampleRecord& s : samples) {
    putSigned(column[kRunTime], s.time_ns - last);
    last = s.time_ns;
    putVarint(column[kRunThread], s.thread);
    putVarint(column[kRunStack], s.stack);
    putVarint(column[kRunState], static_cast<uint8_t>(s.state));
    putVarint(column[kRunKind], static_cast<uint8_t>(s.kind));
    putVarint(column[kRunWeight], s.weight);
    putVarint(column[kRunAnnotation], s.annotation);
    putVarint(column[kRunCarrier], s.carrier);
    putVarint(column[kRunCpuUs], s.cpu_us);
    putVarint(column[kRunAllocBytes], s.alloc_bytes);
  }
  putVarint(body, samples.size());
  putVarint(body, columns);
  for (uint32_t c = 0; c < kSampleRunColumns; ++c)
    if (columns & (1u << c)) putBytes(body, column[c]);
  return body;
}

// The Sample records (16) of older writers give the same samples as a run of them.
TEST(SampleRuns, SampleRecordsOfOlderWritersReadAsARun) {
  std::vector<SampleRecord> samples;
  for (uint32_t i = 0; i < 40; ++i) {
    SampleRecord s = nthSample(i + 10, 2);
    s.kind = SampleKind::Mode;  // a KindSample's time is written another way
    samples.push_back(s);
  }
  std::string old_raw;
  int64_t last = 0;
  for (const SampleRecord& s : samples) {
    std::string body;
    putSigned(body, s.time_ns - last);
    last = s.time_ns;
    for (uint64_t field : {uint64_t{s.thread}, uint64_t{s.stack}, uint64_t{static_cast<uint8_t>(s.state)}, uint64_t{s.weight},
                           uint64_t{s.annotation}, uint64_t{s.carrier}, s.cpu_us, s.alloc_bytes})
      putVarint(body, field);
    putRecord(old_raw, static_cast<uint32_t>(RecordType::Sample), body);
  }
  std::string new_raw;
  const uint32_t all_columns = (1u << kSampleRunColumns) - 1;
  putRecord(new_raw, static_cast<uint32_t>(RecordType::SampleRun), runBody(samples, all_columns));
  const std::string old_path = tempPath("samples-old.ssr"), new_path = tempPath("samples-new.ssr");
  testing::writeHandmadeFile(old_path, old_raw, kOldestReaderVersion, kFeatureZstdChunks, std::nullopt, 40);
  testing::writeHandmadeFile(new_path, new_raw, kOldestReaderVersion, kFeatureZstdChunks | kFeatureSampleRuns, std::nullopt, 40);
  std::vector<std::string> old_warnings, new_warnings;
  const Collector old_file = readHandmade(old_path, &old_warnings), new_file = readHandmade(new_path, &new_warnings);
  EXPECT_TRUE(old_warnings.empty()) << old_warnings.front();
  EXPECT_TRUE(new_warnings.empty()) << new_warnings.front();
  ASSERT_EQ(old_file.samples.size(), samples.size());
  ASSERT_EQ(new_file.samples.size(), samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    EXPECT_TRUE(sameSample(old_file.samples[i], samples[i])) << "sample " << i;
    EXPECT_TRUE(sameSample(new_file.samples[i], samples[i])) << "sample " << i;
  }
  std::remove(old_path.c_str());
  std::remove(new_path.c_str());
}

// A newer writer's record between runs is skipped and the times after it stay right; a column
// this reader does not know (a bit above its own) is left unread.
TEST(SampleRuns, UnknownRecordsAndColumnsAreSkipped) {
  std::vector<SampleRecord> first(3), second(2);
  for (size_t i = 0; i < 3; ++i) first[i] = {int64_t(100 + 10 * i), 1, 2, ThreadState::Running};
  for (size_t i = 0; i < 2; ++i) second[i] = {int64_t(200 + 10 * i), 1, 3, ThreadState::Parked};
  std::string raw;
  putRecord(raw, static_cast<uint32_t>(RecordType::SampleRun), runBody(first));
  putRecord(raw, 60, "a newer record");
  // runBody writes the columns it knows; the newer writer's column 20 follows them.
  std::string with_unknown = runBody(second, kRunRequiredColumns | (1u << 20), first.back().time_ns);
  putBytes(with_unknown, std::string("\x05\x06", 2));
  // Its times are deltas from the running time, which the first run left at 120 and the
  // skipped record did not move.
  putRecord(raw, static_cast<uint32_t>(RecordType::SampleRun), with_unknown);
  const std::string path = tempPath("runs-unknown.ssr");
  testing::writeHandmadeFile(path, raw, kOldestReaderVersion, kFeatureZstdChunks | kFeatureSampleRuns, std::nullopt, 6);
  std::vector<std::string> warnings;
  const Collector c = readHandmade(path, &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(c.unknowns, std::vector<uint32_t>{60});
  ASSERT_EQ(c.samples.size(), 5u);
  EXPECT_EQ(c.samples[2].time_ns, 120);
  EXPECT_EQ(c.samples[3].time_ns, 200);
  EXPECT_EQ(c.samples[4].time_ns, 210);
  EXPECT_EQ(c.samples[4].state, ThreadState::Parked);
  std::remove(path.c_str());
}

// A column that ends before the run's count: the record is malformed and said to be, and no
// sample the columns do not hold is made up (a reader may give the ones before the damage); a
// run without one of its four columns is malformed whole.
TEST(SampleRuns, ARunWithAShortColumnOrWithoutARequiredOneIsMalformed) {
  std::vector<SampleRecord> samples(4);
  for (size_t i = 0; i < 4; ++i) samples[i] = {int64_t(10 * i), 1, 2, ThreadState::Running};
  std::string body = runBody(samples);
  body[0] = 6;  // claims six samples, its columns hold four
  std::string raw;
  putRecord(raw, static_cast<uint32_t>(RecordType::SampleRun), body);
  std::string missing = runBody(samples, kRunRequiredColumns & ~(1u << kRunState));
  putRecord(raw, static_cast<uint32_t>(RecordType::SampleRun), missing);
  const std::string path = tempPath("runs-short.ssr");
  testing::writeHandmadeFile(path, raw, kOldestReaderVersion, kFeatureZstdChunks | kFeatureSampleRuns, std::nullopt, 10);
  std::vector<std::string> warnings;
  const Collector c = readHandmade(path, &warnings);
  ASSERT_LE(c.samples.size(), 4u);
  for (size_t i = 0; i < c.samples.size(); ++i) EXPECT_TRUE(sameSample(c.samples[i], samples[i])) << "sample " << i;
  ASSERT_EQ(warnings.size(), 1u) << warnings[0] << warnings.back();
  EXPECT_NE(warnings[0].find("2 malformed record(s)"), std::string::npos) << warnings[0];
  std::remove(path.c_str());
}

// A run's samples are counted in its chunk's record count, which readers size tables by: the
// writer's count and the reader's agree (no warning), and a torn last chunk loses only itself.
TEST(SampleRuns, ATornLastChunkOfRunsKeepsTheChunksBefore) {
  const std::string path = tempPath("runs-torn.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  w.writeInfo({1, "cpu", 1000, 1000000000, 1, "vm", "", {}, 0, ""});
  w.writeThread({1, "t", 1, 1});
  for (int64_t i = 0; i < 300; ++i) {
    w.writeSample({i, 1, 0, ThreadState::Running});
    if (i % 100 == 99) {
      ASSERT_TRUE(w.flush());
    }
  }
  const std::string whole = testing::readFile(path);
  testing::writeFile(path, whole.substr(0, whole.size() - 7));
  std::vector<std::string> warnings;
  const Collector c = readHandmade(path, &warnings);
  EXPECT_EQ(c.samples.size(), 200u);
  ASSERT_EQ(warnings.size(), 1u) << warnings[0] << warnings.back();  // the torn tail, said once
  for (size_t i = 0; i < c.samples.size(); ++i) EXPECT_EQ(c.samples[i].time_ns, int64_t(i));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stackscope::format

// Hostile files given to the command: a chunk header that lies about its record count, a
// FIFO where the recording or its snapshot file should be, saved snapshots with values out
// of range, a recording changed in place behind the view cache's back. Never a crash, a
// hang, a huge allocation or a stale answer; always one clear line.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "analysis/load.h"
#include "cli_runner.h"
#include "fixture.h"
#include "format/bytes.h"
#include "format/layout.h"
#include "format/reader.h"
#include "format/writer.h"

namespace stackscope::testing {
namespace {

// A hang must fail the test, not stall the suite; the deepest inputs take about 20 s on a
// loaded 2-core machine.
constexpr int kGuardSeconds = 120;

void expectOneLineError(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("stackscope: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

// Sets the record count in the header of the first event chunk to `count`, with a valid
// header checksum: only the count lies. The file must have no index (the scan reads headers).
void setFirstEventChunkCount(const std::string& path, uint32_t count) {
  uint64_t offset = 0;
  {
    format::RecordingReader reader(path);
    ASSERT_FALSE(reader.indexed());
    for (const format::ChunkInfo& c : reader.chunks())
      if (c.kind == format::ChunkKind::Event) {
        offset = c.offset;
        break;
      }
  }
  ASSERT_NE(offset, 0u);
  std::string bytes = readFile(path);
  auto* header = reinterpret_cast<unsigned char*>(bytes.data() + offset);
  for (int i = 0; i < 4; ++i) header[16 + i] = static_cast<unsigned char>(count >> (8 * i));
  const uint32_t checksum = format::fnv1a(header, format::layout::kChunkHeaderChecksummed);
  for (int i = 0; i < 4; ++i) header[format::layout::kChunkHeaderChecksummed + i] = static_cast<unsigned char>(checksum >> (8 * i));
  writeFile(path, bytes);
}

class HostileFilesTest : public ::testing::Test {
 protected:
  CliResult run(const std::string& args) { return runCli(args, dir_.path(), kGuardSeconds); }
  TempDir dir_;
};

TEST_F(HostileFilesTest, ARecordCountOf2To32IsNotAnAllocation) {
  const std::string path = dir_.file("lying.ssr");
  writeReferenceRecording(path, /*finish=*/false);
  const size_t honest = analysis::loadRecording(path).events.size();
  ASSERT_GT(honest, 0u);
  setFirstEventChunkCount(path, 0xffffffffu);
  const analysis::Recording r = analysis::loadRecording(path);
  EXPECT_EQ(r.events.size(), honest);  // everything the chunks hold is still read
  const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(),
                                  [](const std::string& w) { return w.find("claims 4294967295 records but holds") != std::string::npos; });
  EXPECT_TRUE(warned);
  const CliResult report = run("report lying.ssr");
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("claims 4294967295 records"), std::string::npos) << report.out;
  EXPECT_EQ(run("info lying.ssr").exit_code, 0);
}

TEST_F(HostileFilesTest, AFifoAsTheRecordingIsRefusedNotWaitedOn) {
  ASSERT_EQ(::mkfifo(dir_.file("pipe.ssr").c_str(), 0600), 0);
  expectOneLineError(run("report pipe.ssr"), "'pipe.ssr' is not a regular file");
  expectOneLineError(run("report pipe.ssr --no-cache"), "'pipe.ssr' is not a regular file");
  expectOneLineError(run("info pipe.ssr"), "'pipe.ssr' is not a regular file");
  expectOneLineError(run("snapshots pipe.ssr"), "'pipe.ssr' is not a regular file");
}

TEST_F(HostileFilesTest, AFifoAsTheSnapshotFileIsRefusedNotWaitedOn) {
  writeReferenceRecording(dir_.file("ref.ssr"));
  ASSERT_EQ(::mkfifo(dir_.file("ref.ssr.snapshots.json").c_str(), 0600), 0);
  expectOneLineError(run("report ref.ssr --snapshot x"), "ref.ssr.snapshots.json' is not a regular file");
  expectOneLineError(run("snapshots ref.ssr"), "ref.ssr.snapshots.json' is not a regular file");
  expectOneLineError(run("snapshot ref.ssr --name y"), "ref.ssr.snapshots.json' is not a regular file");
}

TEST_F(HostileFilesTest, ASavedTimeOutOfRangeIsRefusedNotReadAsMinusOne) {
  writeReferenceRecording(dir_.file("ref.ssr"));
  writeFile(dir_.file("ref.ssr.snapshots.json"),
            R"({"version":1,"snapshots":[{"name":"all","from_ns":18446744073709551615}]})");
  const CliResult r = run("report ref.ssr --snapshot all");
  expectOneLineError(r, "snapshot 'all': from_ns must be a whole number of nanoseconds");
  EXPECT_EQ(r.out.find("-1ns"), std::string::npos);
}

TEST_F(HostileFilesTest, DeepNestingFromTheCommandLineAndFromDiskIsOneClearError) {
  writeReferenceRecording(dir_.file("ref.ssr"));
  const std::string deep = std::string(15000, '(') + "user=u1" + std::string(15000, ')');
  // --where errors show the expression with a caret under the position: an excerpt of it.
  const CliResult where = run("report ref.ssr --where '" + deep + "'");
  EXPECT_EQ(where.exit_code, 1);
  EXPECT_EQ(where.err.rfind("stackscope: error: --where: nested deeper than 200 levels", 0), 0u) << where.err.substr(0, 300);
  EXPECT_LT(where.err.size(), 400u);
  {
    // A saved filter of 20 000 parentheses, and a 30 000-deep chain of parents.
    std::string list = R"({"name":"deep","where":")" + std::string(20000, '(') + "user=u1" + std::string(20000, ')') + "\"}";
    list += R"(,{"name":"c0"})";
    for (int i = 1; i < 30000; ++i) list += ",{\"name\":\"c" + std::to_string(i) + "\",\"parent\":\"c" + std::to_string(i - 1) + "\"}";
    writeFile(dir_.file("ref.ssr.snapshots.json"), "{\"version\":1,\"snapshots\":[" + list + "]}");
  }
  const CliResult filter = run("report ref.ssr --snapshot deep");
  EXPECT_EQ(filter.exit_code, 1) << filter.err;
  EXPECT_NE(filter.err.find("snapshot 'deep' has a bad saved filter: --where: nested deeper than"), std::string::npos) << filter.err.substr(0, 300);
  expectOneLineError(run("report ref.ssr --snapshot c29999"), "levels of parents");
  const CliResult list = run("snapshots ref.ssr");
  EXPECT_EQ(list.exit_code, 0) << list.err.substr(0, 300);
  EXPECT_NE(list.out.find("levels of parents"), std::string::npos);
}

// A recording whose only thread is called `name`; equal-length names give equal sizes.
void writeNamedRecording(const std::string& path, const std::string& name) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(path)) << w.lastError();
  w.writeInfo({1, "cpu", 10000000, 1000000000, 1, "VM", "", {}, /*sample_metrics=*/0, /*boot_id=*/""});
  w.writeThread({1, name, 100, 1});
  for (int i = 1; i <= 5; ++i) w.writeSample({i * kMs, 1, 0, format::ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(10 * kMs)) << w.lastError();
}

TEST_F(HostileFilesTest, ARecordingRewrittenInPlaceWithSameSizeAndMtimeIsRecomputed) {
  const std::string path = dir_.file("r.ssr");
  writeNamedRecording(path, "alpha-thread");
  writeNamedRecording(dir_.file("other.ssr"), "omega-thread");
  const std::string replacement = readFile(dir_.file("other.ssr"));
  ASSERT_EQ(replacement.size(), std::filesystem::file_size(path));
  struct stat before {};
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  const CliResult first = run("report r.ssr --view threads");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_NE(first.out.find("alpha-thread"), std::string::npos);
  ASSERT_NE(run("report r.ssr --view threads").out.find("alpha-thread"), std::string::npos);  // cached
  {
    std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
    file.write(replacement.data(), static_cast<std::streamsize>(replacement.size()));
  }
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  const CliResult second = run("report r.ssr --view threads");
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("omega-thread"), std::string::npos) << second.out;
  EXPECT_EQ(second.out.find("alpha-thread"), std::string::npos) << second.out;
}

}  // namespace
}  // namespace stackscope::testing

// A rotating recording's files on disk and a dump's copy of them (recording_parts.h), in a
// temporary directory: which parts are found, what the copy holds, what it removes.
#include "agent/recording_parts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace stackscope::agent {
namespace {

namespace fs = std::filesystem;

class RecordingParts : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stackscope-parts-" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "copy");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static void write(const std::string& path, const std::string& content) { std::ofstream(path) << content; }
  static std::string read(const std::string& path) {
    std::ostringstream text;
    text << std::ifstream(path).rdbuf();
    return text.str();
  }
  fs::path dir_;
};

TEST_F(RecordingParts, FinishedPartsAreThoseOnDiskBeforeTheCurrentOldestFirst) {
  write(path("run.ssr"), "part zero");
  write(path("run-1.ssr"), "one");
  write(path("run-3.ssr"), "three, removed by hand before");
  write(path("run-4.ssr"), "the current one");
  fs::remove(path("run-3.ssr"));
  const std::vector<FinishedPart> parts = finishedParts(path("run.ssr"), 4, 0);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].number, 0u);
  EXPECT_EQ(parts[0].path, path("run.ssr"));
  EXPECT_EQ(parts[0].bytes, 9u);
  EXPECT_EQ(parts[1].number, 1u);
  EXPECT_EQ(parts[1].bytes, 3u);
  // maxfiles=3 with part 4 current: only parts 2 and 3 can be left, and 3 is gone.
  EXPECT_TRUE(finishedParts(path("run.ssr"), 4, 3).empty());
  EXPECT_TRUE(finishedParts(path("run.ssr"), 0, 0).empty());
}

TEST_F(RecordingParts, CopyNamesEachPartAsTheDumpsSetAndRemovesAnEarlierCopysOtherParts) {
  write(path("run-5.ssr"), "five");
  write(path("run-6.ssr"), "six");
  write(path("run-7.ssr"), "current");
  // An earlier dump to the same name: its first file and a part this one does not write.
  write(path("copy/f.ssr"), "old zero");
  write(path("copy/f-9.ssr"), "old nine");
  write(path("copy/f-6.ssr"), "old six");
  write(path("copy/f-x.ssr"), "not a part");
  const PartCopies copies(path("run.ssr"), 7, 3);
  EXPECT_EQ(copies.firstPart(), 5u);
  EXPECT_EQ(copies.files(), 3u);
  std::string error;
  ASSERT_TRUE(copies.mayWrite(path("copy/f.ssr"), error)) << error;
  fs::remove(path("run-5.ssr"));  // maxfiles= deletes it now: it was opened already
  ASSERT_TRUE(copies.copy(path("copy/f.ssr"), error)) << error;
  EXPECT_EQ(read(path("copy/f-5.ssr")), "five");
  EXPECT_EQ(read(path("copy/f-6.ssr")), "six");
  EXPECT_FALSE(fs::exists(path("copy/f-7.ssr")));  // the current part is the writer's to copy
  EXPECT_FALSE(fs::exists(path("copy/f.ssr")));
  EXPECT_FALSE(fs::exists(path("copy/f-9.ssr")));
  EXPECT_EQ(read(path("copy/f-x.ssr")), "not a part");
}

TEST_F(RecordingParts, NeverWritesOverNorRemovesTheRecordingsOwnFiles) {
  write(path("run.ssr"), "zero");
  write(path("run-1.ssr"), "current");
  const PartCopies copies(path("run.ssr"), 1, 0);
  std::string error;
  EXPECT_FALSE(copies.mayWrite(path("run.ssr"), error));  // run-1.ssr is the current part
  EXPECT_EQ(error, "'" + path("run-1.ssr") + "' is a file of the recording itself");
  // A dump to "run-1.ssr" would write part 0 there: the recording's part 1.
  EXPECT_FALSE(copies.mayWrite(path("run-1.ssr"), error));
  EXPECT_EQ(error, "'" + path("run-1.ssr") + "' is a file of the recording itself");
  // With part 0 deleted (maxfiles=2), a dump to "run-1.ssr" writes run-1-1.ssr and
  // run-1-2.ssr; run-1.ssr would be its part 0, left from before, but it is the recording's.
  write(path("run-1.ssr"), "one");
  write(path("run-2.ssr"), "current");
  fs::remove(path("run.ssr"));
  const PartCopies later(path("run.ssr"), 2, 2);
  ASSERT_TRUE(later.mayWrite(path("run-1.ssr"), error)) << error;
  ASSERT_TRUE(later.copy(path("run-1.ssr"), error)) << error;
  EXPECT_EQ(read(path("run-1-1.ssr")), "one");
  EXPECT_EQ(read(path("run-1.ssr")), "one");
}

}  // namespace
}  // namespace stackscope::agent

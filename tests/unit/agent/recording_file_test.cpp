// Naming and opening recording files: %p and %t, the alternative name with the pid, the
// exclusive lock (two writers in one process hold two open file descriptions, which flock(2)
// treats like two processes), overwrite=no, and the JAVA_TOOL_OPTIONS editing for children=.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

#include "agent/file_name.h"
#include "agent/recording_file.h"
#include "agent/tool_options.h"

namespace stackscope::agent {
namespace {

namespace fs = std::filesystem;

TEST(FileName, ExpandsPidTimeAndPercent) {
  EXPECT_EQ(expandFileName("run-%p-%t.ssr", 4242, "20250101-120000"), "run-4242-20250101-120000.ssr");
  EXPECT_EQ(expandFileName("100%%-%p.ssr", 7, "x"), "100%-7.ssr");
  EXPECT_EQ(expandFileName("plain.ssr", 7, "x"), "plain.ssr");
  // Anything else after '%', or a trailing '%', is kept as written.
  EXPECT_EQ(expandFileName("a%d%", 7, "x"), "a%d%");
}

TEST(FileName, AlternativeNameInsertsThePidBeforeTheExtension) {
  EXPECT_EQ(withPid("run.ssr", "42"), "run.42.ssr");
  EXPECT_EQ(withPid("/d.x/run.v2.ssr", "42"), "/d.x/run.v2.42.ssr");
  EXPECT_EQ(withPid("/d.x/run", "42"), "/d.x/run.42");
  EXPECT_EQ(withPid("/d/.ssr", "42"), "/d/.ssr.42");
}

TEST(FileName, RecognisesTheNamesOfAPattern) {
  EXPECT_TRUE(isFileNameOf("/d/run.ssr", "/d/run.ssr"));
  EXPECT_TRUE(isFileNameOf("/d/run.ssr", "/d/run.123.ssr"));
  EXPECT_FALSE(isFileNameOf("/d/run.ssr", "/d/run.x1.ssr"));
  EXPECT_FALSE(isFileNameOf("/d/run.ssr", "/d/run..ssr"));
  EXPECT_FALSE(isFileNameOf("/d/run.ssr", "/d/other.ssr"));
  EXPECT_TRUE(isFileNameOf("/d/p-%p-%t.ssr", "/d/p-99-20250101-120000.ssr"));
  EXPECT_TRUE(isFileNameOf("/d/p-%p-%t.ssr", "/d/p-99-20250101-120000.99.ssr"));
  EXPECT_FALSE(isFileNameOf("/d/p-%p-%t.ssr", "/d/p-99-2025.ssr"));
  EXPECT_TRUE(isFileNameOf("/d/a%%b.ssr", "/d/a%b.ssr"));
}

TEST(ToolOptions, RemovesOnlyThisAgent) {
  auto is_ours = [](std::string_view path) { return path == "/lib/libstackscope.so"; };
  EXPECT_EQ(withoutAgent("-Xmx1g -agentpath:/lib/libstackscope.so=file=a.ssr,children=yes  -Dx=1", is_ours),
            "-Xmx1g -Dx=1");
  EXPECT_EQ(withoutAgent("-agentpath:/lib/libstackscope.so", is_ours), "");
  EXPECT_EQ(withoutAgent(" -agentpath:/other/libx.so=a -agentpath:/lib/libstackscope.so=b ", is_ours),
            "-agentpath:/other/libx.so=a");
  EXPECT_EQ(withoutAgent("", is_ours), "");
}

class RecordingFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stackscope-recfile-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Options options(const std::string& name, bool overwrite = true) {
    Options o;
    o.file = (dir_ / name).string();
    o.overwrite = overwrite;
    return o;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

TEST_F(RecordingFile, ExpandsThePattern) {
  format::RecordingWriter writer;
  const OpenedRecording opened = openRecording(writer, options("r-%p-%t.ssr"), 17, "20250101-120000");
  ASSERT_TRUE(opened.ok) << opened.error;
  EXPECT_EQ(opened.path, path("r-17-20250101-120000.ssr"));
  EXPECT_EQ(opened.notice, "");
  EXPECT_TRUE(fs::exists(opened.path));
}

TEST_F(RecordingFile, AFileBeingWrittenGetsTheAlternativeNameAndANotice) {
  format::RecordingWriter holder;
  ASSERT_EQ(holder.tryOpen(path("held.ssr"), false), format::RecordingWriter::OpenResult::Opened);
  ASSERT_TRUE(holder.flush());
  const std::string held = contents(path("held.ssr"));
  format::RecordingWriter second;
  const OpenedRecording opened = openRecording(second, options("held.ssr"), 4242, "t");
  ASSERT_TRUE(opened.ok) << opened.error;
  EXPECT_EQ(opened.path, path("held.4242.ssr"));
  EXPECT_EQ(opened.notice, "stackscope: '" + path("held.ssr") + "' is being written by another process; recording to '" +
                               path("held.4242.ssr") + "' instead");
  EXPECT_EQ(contents(path("held.ssr")), held);

  // overwrite=no asked for another name whenever the named file cannot be taken: no notice.
  format::RecordingWriter third;
  const OpenedRecording quiet = openRecording(third, options("held.ssr", false), 4343, "t");
  EXPECT_EQ(quiet.path, path("held.4343.ssr"));
  EXPECT_EQ(quiet.notice, "");
}

TEST_F(RecordingFile, ALockedFileIsNotTruncated) {
  format::RecordingWriter holder;
  ASSERT_EQ(holder.tryOpen(path("a.ssr"), false), format::RecordingWriter::OpenResult::Opened);
  ASSERT_TRUE(holder.flush());
  const uintmax_t size = fs::file_size(path("a.ssr"));
  ASSERT_GT(size, 0u);
  format::RecordingWriter other;
  EXPECT_EQ(other.tryOpen(path("a.ssr"), false), format::RecordingWriter::OpenResult::Busy);
  EXPECT_EQ(fs::file_size(path("a.ssr")), size);
  EXPECT_FALSE(other.isOpen());
}

TEST_F(RecordingFile, OverwriteNoKeepsARecordingAndSaysNothing) {
  {
    format::RecordingWriter earlier;
    ASSERT_TRUE(openRecording(earlier, options("run.ssr"), 1, "t").ok);
    ASSERT_TRUE(earlier.finish(0));
  }
  const std::string earlier = contents(path("run.ssr"));
  format::RecordingWriter writer;
  const OpenedRecording opened = openRecording(writer, options("run.ssr", false), 99, "t");
  ASSERT_TRUE(opened.ok) << opened.error;
  EXPECT_EQ(opened.path, path("run.99.ssr"));
  EXPECT_EQ(opened.notice, "");
  EXPECT_EQ(contents(path("run.ssr")), earlier);

  // An empty file (or none) is taken.
  std::ofstream(path("empty.ssr")).close();
  format::RecordingWriter fresh;
  EXPECT_EQ(openRecording(fresh, options("empty.ssr", false), 99, "t").path, path("empty.ssr"));
}

TEST_F(RecordingFile, OverwriteYesReplacesAFinishedRecording) {
  std::ofstream(path("old.ssr")) << std::string(1000, 'x');
  format::RecordingWriter writer;
  const OpenedRecording opened = openRecording(writer, options("old.ssr"), 5, "t");
  ASSERT_TRUE(opened.ok) << opened.error;
  EXPECT_EQ(opened.path, path("old.ssr"));
  EXPECT_LT(fs::file_size(path("old.ssr")), 1000u);  // truncated, then only the header
}

TEST_F(RecordingFile, AMissingDirectoryIsOneLine) {
  format::RecordingWriter writer;
  const OpenedRecording opened = openRecording(writer, options("no/such/dir.ssr"), 5, "t");
  EXPECT_FALSE(opened.ok);
  EXPECT_EQ(opened.error.rfind("stackscope: cannot create '" + path("no/such/dir.ssr") + "': ", 0), 0u) << opened.error;
  EXPECT_EQ(opened.error.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace stackscope::agent

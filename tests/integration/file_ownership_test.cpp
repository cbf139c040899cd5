// One recording file, one writer: a JVM given a file another JVM is writing records to the
// pid-named alternative and says so in one line; the agent loaded twice into one JVM (the same
// library twice, or two copies of it) says so, keeps the first and creates or truncates no
// file. Before these rules the second writer truncated the first one's file, leaving a
// recording whose chunks did not match its index (or a 16-byte stub).
#include <filesystem>
#include <regex>

#include "harness.h"

namespace it {
namespace {

namespace fs = std::filesystem;

std::string withoutNewline(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

class FileOwnership : public RecordingTest {
 protected:
  std::vector<std::string> withAgent(const std::string& agent, const std::string& options) {
    return {"-agentpath:" + agent + "=" + options};
  }
  // Finished, indexed, no warnings, and holding the Spinner's samples.
  void expectComplete(const std::string& path, double min_samples) {
    json info = query({"info", path});
    EXPECT_EQ(info.at("finished"), true) << path;
    EXPECT_EQ(info.at("indexed"), true) << path;
    json methods = report(path);
    EXPECT_EQ(methods.at("warnings"), json::array()) << path;
    EXPECT_GE(methods.at("samples").get<double>(), min_samples) << path;
  }
};

TEST_F(FileOwnership, ASecondJvmOnTheSameFileWritesItsOwn) {
  const std::string path = file("same.ssr");
  // The first JVM runs until it has burned 2 s of CPU; the second starts once the first is
  // recording (it prints "spinning" from main) and is over well before.
  Child first(javaCommand("Spinner", {"2000"}, withAgent(agentPath(), "file=" + path)));
  ASSERT_TRUE(first.waitForStdout("spinning", std::chrono::seconds(60)));
  ProcessResult second = run(javaCommand("Spinner", {"300"}, withAgent(agentPath(), "file=" + path)));
  ProcessResult first_result = first.wait(std::chrono::seconds(120));
  ASSERT_EQ(first_result.exit_code, 0) << first_result.err;
  ASSERT_EQ(second.exit_code, 0) << second.err;

  std::smatch pid;
  const std::string err = withoutNewline(second.err);
  ASSERT_TRUE(std::regex_search(err, pid, std::regex("same\\.(\\d+)\\.ssr"))) << err;
  const std::string alternative = file("same." + pid[1].str() + ".ssr");
  EXPECT_EQ(err, "stackscope: '" + path + "' is being written by another process; recording to '" + alternative +
                     "' instead");
  EXPECT_EQ(first_result.err, "");
  // 2 s and 0.3 s of CPU at 10 ms: at least half the due samples in each file.
  expectComplete(path, 100);
  expectComplete(alternative, 15);
}

class DoubleLoad : public FileOwnership, public ::testing::WithParamInterface<bool> {};

TEST_P(DoubleLoad, KeepsTheFirstAndTouchesNoFile) {
  // A copy of the library is a different file to dlopen: its own statics, so only the
  // process-wide marker tells it the agent is there already.
  const bool copy = GetParam();
  std::string second_agent = agentPath();
  if (copy) {
    second_agent = file("copy-of-libstackscope.so");
    fs::copy_file(agentPath(), second_agent);
  }
  std::vector<std::string> options = withAgent(agentPath(), "file=" + file("first.ssr"));
  for (const std::string& item : withAgent(second_agent, "file=" + file("second.ssr"))) options.push_back(item);
  ProcessResult jvm = run(javaCommand("Spinner", {"500"}, options));
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_EQ(withoutNewline(jvm.err),
            "stackscope: the agent is already loaded in this JVM; keeping the first, ignoring 'file=" + file("second.ssr") +
                "'");
  EXPECT_FALSE(fs::exists(file("second.ssr")));
  expectComplete(file("first.ssr"), 25);
}

TEST_P(DoubleLoad, SameFileTwiceLeavesTheFirstRecordingWhole) {
  const bool copy = GetParam();
  std::string second_agent = agentPath();
  if (copy) {
    second_agent = file("copy-of-libstackscope.so");
    fs::copy_file(agentPath(), second_agent);
  }
  std::vector<std::string> options = withAgent(agentPath(), "file=" + file("one.ssr"));
  for (const std::string& item : withAgent(second_agent, "file=" + file("one.ssr"))) options.push_back(item);
  ProcessResult jvm = run(javaCommand("Spinner", {"500"}, options));
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_NE(jvm.err.find("already loaded"), std::string::npos) << jvm.err;
  expectComplete(file("one.ssr"), 25);
}

INSTANTIATE_TEST_SUITE_P(Agent, DoubleLoad, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) { return info.param ? "TwoCopies" : "SameLibrary"; });

TEST_F(FileOwnership, PidAndTimeInTheFileName) {
  ProcessResult jvm = run(javaCommand("Spinner", {"300"}, withAgent(agentPath(), "file=" + file("p-%p-%t.ssr"))));
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(file("x")).parent_path()))
    names.push_back(entry.path().filename().string());
  ASSERT_EQ(names.size(), 1u);
  std::smatch parts;
  ASSERT_TRUE(std::regex_match(names[0], parts, std::regex("p-(\\d+)-(\\d{8}-\\d{6})\\.ssr"))) << names[0];
  json info = query({"info", file(names[0])});
  EXPECT_EQ(info.at("recording").value("pid", 0L), std::stol(parts[1]));
}

}  // namespace
}  // namespace it

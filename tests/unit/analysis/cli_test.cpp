// The `stackscope` command on hand-built files: exit codes (0 success, 1 user error with one
// line on stderr), bad files, and what `record` does without starting a JVM.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixture.h"

namespace stackscope::testing {
namespace {

size_t lineCount(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// A user error: exit 1, nothing on stdout, exactly one line on stderr that says what is wrong.
void expectUserError(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(lineCount(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("stackscope: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }
  TempDir dir_;
};

TEST_F(CliTest, HelpSucceedsForEveryCommand) {
  for (const char* args : {"--help", "record --help", "report --help", "info --help"}) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args;
  }
  EXPECT_NE(run("report --help").out.find("--view"), std::string::npos);
}

TEST_F(CliTest, UsageMistakesAreUserErrors) {
  expectUserError(run(""), "subcommand");
  expectUserError(run("frobnicate"), "unknown command 'frobnicate'");
  expectUserError(run("report"), "file");
  expectUserError(run("report ref.ssr --view flames"), "flames");
  expectUserError(run("report ref.ssr --top -3"), "--top");
  expectUserError(run("report ref.ssr --from 10"), "'10' is not a duration");
  expectUserError(run("report ref.ssr --from 2s --to 1s"), "--to");
  // record checks its options with the agent's own parser, so the message is the agent's.
  expectUserError(run("record -i fast -- java -version"), "bad agent option 'interval=fast': expected a duration");
  expectUserError(run("record -e heap -- java -version"), "heap");
}

TEST_F(CliTest, MissingFileIsOneClearError) { expectUserError(run("report absent.ssr"), "cannot open 'absent.ssr'"); }

TEST_F(CliTest, GarbageFileIsOneClearError) {
  writeFile(dir_.file("garbage.ssr"), "this is not a recording, just some text\n");
  expectUserError(run("report garbage.ssr"), "not a stackscope recording");
  expectUserError(run("info garbage.ssr"), "not a stackscope recording");
  writeFile(dir_.file("empty.ssr"), "");
  expectUserError(run("report empty.ssr"), "empty");
}

TEST_F(CliTest, TruncatedFileReportsWarningAndReadablePart) {
  truncateFile(dir_.file("ref.ssr"), lastChunkOffset(dir_.file("ref.ssr")) + 10);
  const CliResult r = run("report ref.ssr");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Warning:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unfinished"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("11 taken"), std::string::npos) << r.out;
  const CliResult j = run("report ref.ssr --json");
  ASSERT_EQ(j.exit_code, 0);
  const auto json = nlohmann::json::parse(j.out);
  EXPECT_EQ(json["samples"], 11);
  EXPECT_FALSE(json["warnings"].empty());
  EXPECT_EQ(json["finished"], false);
}

TEST_F(CliTest, CorruptedFileReportsWarningAndReadablePart) {
  corruptChunk(dir_.file("ref.ssr"), -1);
  for (const char* view : {"methods", "tree", "threads"}) {
    const CliResult r = run(std::string("report ref.ssr --view ") + view);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("is corrupted (checksum mismatch); skipped"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("11 taken"), std::string::npos) << r.out;
  }
  const CliResult info = run("info ref.ssr");
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("Warning:"), std::string::npos) << info.out;
}

TEST_F(CliTest, TruncatedAtEveryRegionNeverCrashes) {
  const std::string original = readFile(dir_.file("ref.ssr"));
  for (size_t size = 0; size < original.size(); size += 37) {
    writeFile(dir_.file("cut.ssr"), original.substr(0, size));
    const CliResult r = run("report cut.ssr --view tree");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "size " << size << ": " << r.err;
  }
}

TEST_F(CliTest, MethodsJsonHasTheContractFields) {
  const CliResult r = run("report ref.ssr --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["samples"], 14);
  EXPECT_EQ(json["lost_total"], 4);
  ASSERT_EQ(json["methods"].size(), 6u);  // JSON lists every method unless --top says otherwise
  const auto& top = json["methods"][0];
  EXPECT_EQ(top["method"], "app.Work.a");
  EXPECT_EQ(top["self"], 5);
  EXPECT_EQ(top["total"], 10);
  EXPECT_NEAR(top["self_pct"].get<double>(), 100.0 * 5 / 14, 1e-3);
  EXPECT_NEAR(top["total_pct"].get<double>(), 100.0 * 10 / 14, 1e-3);
}

TEST_F(CliTest, InfoDescribesTheFile) {
  const CliResult r = run("info ref.ssr --chunks");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"Index:     present", "Finished:  yes, after 70ms", "sample 13", "14 taken (as 13 samples, weighted", "4 lost",
                             "2 reports", "max 75.0%", "GC 3 collections", "Offset"})
    EXPECT_NE(r.out.find(needle), std::string::npos) << needle << "\n" << r.out;
  const CliResult j = run("info ref.ssr --json --chunks");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto json = nlohmann::json::parse(j.out);
  EXPECT_EQ(json["records"]["sample"], 13);
  EXPECT_EQ(json["samples"], 14);
  EXPECT_EQ(json["sample_records"], 13) << "one sample stands for two intervals";
  EXPECT_EQ(json["status"]["count"], 2);
  EXPECT_EQ(json["chunks"]["list"].size(), json["chunks"]["count"]);
}

TEST_F(CliTest, RecordRefusesAnOutputPathWithAComma) {
  expectUserError(run("record -o a,b.ssr -- java -version"), "contains ','");
}

TEST_F(CliTest, RecordNeedsTheAgentOrPassesTheExitCodeThrough) {
  const std::string agent =
      (std::filesystem::path(STACKSCOPE_BIN).parent_path() / ".." / "lib" / "libstackscope.so").lexically_normal();
  const std::string program = "-o out.ssr -- /bin/sh -c 'echo \"$JAVA_TOOL_OPTIONS\"; exit 3'";
  const CliResult r = run("record " + program);
  if (::access(agent.c_str(), R_OK) != 0) {
    expectUserError(r, "the agent is missing");
    return;
  }
  // Not a `java` command: the agent goes through JAVA_TOOL_OPTIONS; no JVM, no recording.
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("-agentpath:" + agent + "=event=cpu,interval=10ms,status=1s,file=" + dir_.file("out.ssr")),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("nothing was recorded: '/bin/sh' started no JVM"), std::string::npos) << r.err;
  EXPECT_EQ(run("record -- /bin/sh -c 'kill -TERM $$'").exit_code, 128 + 15);
  expectUserError(run("record -- /nonexistent/java -version"), "cannot run '/nonexistent/java'");
}

}  // namespace
}  // namespace stackscope::testing

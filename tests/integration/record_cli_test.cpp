// `stackscope record` checks what it is given before it starts anything: a bad option fails
// with the agent's own message and exit 1, and the program never runs (it would have run
// unprofiled, and record exited 0). A missing `--` and a program that starts no JVM get
// one line each.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <ostream>

#include "harness.h"

namespace it {
namespace {

namespace fs = std::filesystem;

size_t lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

class RecordChecks : public RecordingTest {
 protected:
  // `record OPTIONS -- sh -c 'touch started'`: whether the program ran shows on disk.
  ProcessResult recordTouch(const std::vector<std::string>& options) {
    std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-o", file("run.ssr")};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--", "/bin/sh", "-c", "touch '" + file("started") + "'"});
    return run(argv);
  }
  bool started() const { return fs::exists(file("started")); }
};

struct BadRecordOption {
  std::vector<std::string> options;
  std::string agent_message;  // what the agent itself prints for the same option, minus "stackscope: "
};

// Names the case in test listings instead of the struct's bytes.
void PrintTo(const BadRecordOption& bad, std::ostream* out) { *out << bad.options[0] << ' ' << bad.options[1]; }

class BadRecordOptions : public RecordChecks, public ::testing::WithParamInterface<BadRecordOption> {};

TEST_P(BadRecordOptions, FailWithTheAgentsMessageBeforeAnythingRuns) {
  ProcessResult rec = recordTouch(GetParam().options);
  EXPECT_EQ(rec.exit_code, 1) << rec.err;
  EXPECT_EQ(rec.err, "stackscope: error: " + GetParam().agent_message + "\n");
  EXPECT_FALSE(started()) << "the program ran";
  EXPECT_FALSE(fs::exists(file("run.ssr")));

  // The same option given to the agent directly prints the same words.
  const std::string item = GetParam().agent_message.substr(GetParam().agent_message.find('\'') + 1);
  const std::string option = item.substr(0, item.find('\''));
  ProcessResult jvm = run(javaCommand("Spinner", {"50"}, {"-agentpath:" + agentPath() + "=" + option}));
  EXPECT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_EQ(jvm.err, "stackscope: " + GetParam().agent_message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
    Record, BadRecordOptions,
    ::testing::Values(
        BadRecordOption{{"-i", "1us"}, "bad agent option 'interval=1us': must be between 100us and 10s"},
        BadRecordOption{{"--status", "5ms"}, "bad agent option 'status=5ms': must be between 10ms and 1h"},
        BadRecordOption{{"--filter", "user=u1"},
                        "bad agent option 'filter=user=u1': expected KEY:GLOB, not 'user=u1' (the filter is "
                        "written user:u1, not user=u1 as in --where)"},
        BadRecordOption{{"--filter", "colour:red"},
                        "bad agent option 'filter=colour:red': unknown key 'colour' (known: user, session, request, "
                        "application, component)"}),
    [](const ::testing::TestParamInfo<BadRecordOption>& info) {
      std::string name = info.param.options[0] + "_" + info.param.options[1];
      for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return name;
    });

TEST_F(RecordChecks, MissingSeparatorIsExplained) {
  std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-o", file("run.ssr")};
  for (const std::string& arg : javaCommand("Spinner", {"50"})) argv.push_back(arg);
  ProcessResult rec = run(argv);
  EXPECT_EQ(rec.exit_code, 1);
  EXPECT_EQ(lines(rec.err), 1u) << rec.err;
  EXPECT_NE(rec.err.find("put the program to profile after '--'"), std::string::npos) << rec.err;
  EXPECT_EQ(rec.out, "") << "the JVM ran";
}

// The agent refuses maxfiles= without rotate= in its own words; record says it in its options'.
TEST_F(RecordChecks, MaxFilesWithoutRotateIsRefusedInTheOptionsWords) {
  ProcessResult rec = recordTouch({"--maxfiles", "5"});
  EXPECT_EQ(rec.exit_code, 1);
  EXPECT_EQ(rec.err,
            "stackscope: error: --maxfiles 5 needs --rotate DURATION or SIZE (1h, 256m): without rotation the recording is one "
            "file\n");
  EXPECT_FALSE(started()) << "the program ran";
}

TEST_F(RecordChecks, UnknownRecordOptionIsNamed) {
  ProcessResult rec = recordTouch({"--frobnicate"});
  EXPECT_EQ(rec.exit_code, 1);
  EXPECT_EQ(rec.err, "stackscope: error: record: unknown option '--frobnicate' (see --help)\n");
  EXPECT_FALSE(started());
}

TEST_F(RecordChecks, AProgramThatIsNotAJvmRunsAndIsExplained) {
  ProcessResult rec = recordTouch({});
  EXPECT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_TRUE(started());
  EXPECT_EQ(rec.err, "stackscope: warning: nothing was recorded: '/bin/sh' started no JVM that ran the agent "
                     "(record profiles Java programs)\n");
  EXPECT_FALSE(fs::exists(file("run.ssr")));
}

}  // namespace
}  // namespace it

// The agent's options given straight to the JVM. A bad option must cost the user one clear
// line and never the JVM, unless they asked for strict.
#include <cctype>

#include "harness.h"

namespace it {
namespace {

class AgentOptions : public RecordingTest {
 protected:
  ProcessResult runWithAgent(const std::string& options) {
    return run(javaCommand("Spinner", {"200"}, {"-agentpath:" + agentPath() + "=" + options}));
  }
};

TEST_F(AgentOptions, AllOptionsGivenDirectlyAreHonoured) {
  std::string path = file("direct.ssr");
  ProcessResult jvm = runWithAgent("event=wall,interval=5ms,status=200ms,file=" + path);
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_EQ(jvm.err, "");
  json methods = report(path);
  EXPECT_EQ(methods.value("mode", ""), "wall");
  EXPECT_EQ(methods.value("interval_ns", 0.0), 5e6);
  EXPECT_GT(methods.at("samples").get<double>(), 0);

  // A status report every 200 ms of the run.
  json info = query({"info", path});
  EXPECT_EQ(info.at("recording").value("status_interval_ns", 0.0), 2e8);
  EXPECT_GE(info.at("status").value("count", 0.0), info.value("duration_ns", 0.0) / 2e8 - 1)
      << info.dump(1);
}

class BadOption : public AgentOptions, public ::testing::WithParamInterface<const char*> {};

TEST_P(BadOption, OneLineNamesItAndTheJvmRunsUnprofiled) {
  std::string path = file("bad.ssr");
  ProcessResult jvm = runWithAgent(std::string(GetParam()) + ",file=" + path);
  EXPECT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_NE(jvm.out.find("spinning"), std::string::npos) << "main did not run";
  std::string err = jvm.err;
  ASSERT_FALSE(err.empty()) << "no message";
  if (err.back() == '\n') err.pop_back();
  EXPECT_EQ(err.find('\n'), std::string::npos) << "more than one line:\n" << jvm.err;
  EXPECT_NE(err.find("stackscope"), std::string::npos) << err;
  std::string option(GetParam());
  std::string key = option.substr(0, option.find('='));
  EXPECT_NE(err.find(key), std::string::npos) << "does not name the option: " << err;
  EXPECT_FALSE(std::filesystem::exists(path)) << "an unprofiled JVM wrote a recording";
}

// Test names may hold only letters, digits and '_': "event=bogus" becomes event_bogus.
std::string optionName(const ::testing::TestParamInfo<const char*>& info) {
  std::string name = info.param;
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Options, BadOption,
                         ::testing::Values("event=bogus", "interval=abc", "colour=red", "interval=1ms,interval=2ms"),
                         optionName);

TEST_F(AgentOptions, StrictMakesABadOptionStopTheJvm) {
  ProcessResult jvm = runWithAgent("event=bogus,strict,file=" + file("strict.ssr"));
  EXPECT_NE(jvm.exit_code, 0);
  EXPECT_EQ(jvm.out.find("spinning"), std::string::npos) << "main ran despite strict";
  EXPECT_NE(jvm.err.find("event"), std::string::npos) << jvm.err;
}

}  // namespace
}  // namespace it

// The agent loads without libdw: libstackscope.so needs neither libdw nor libelf (the JDK does
// not depend on them; a JVM whose -agentpath library cannot load does not start), and a JVM
// given the agent alone in a directory starts, runs its program to the end and records its
// native frames, which the front-end names when it reads the recording (tests/java Deflating:
// most of its CPU is in zlib). Run on the build's JDK, or $STACKSCOPE_TEST_JAVA.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace {

std::string testJava() {
  const char* java = std::getenv("STACKSCOPE_TEST_JAVA");
  return java && *java ? java : NATIVE_TEST_JAVA;
}

// Runs `command` with the shell; its standard output, and its exit code in `status`.
std::string run(const std::string& command, int& status) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    status = -1;
    return output;
  }
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int raw = pclose(pipe);
  status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return output;
}

std::string fileText(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

TEST(AgentLoading, NeedsNeitherLibdwNorLibelf) {
  int status = 0;
  const std::string dynamic = run("readelf -d '" STACKSCOPE_AGENT "'", status);
  ASSERT_EQ(status, 0) << dynamic;
  ASSERT_NE(dynamic.find("(NEEDED)"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("libdw"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("libelf"), std::string::npos) << dynamic;
}

TEST(AgentLoading, TheAgentAloneRecordsNativeFramesThatTheReportNames) {
  const std::string directory = testing::TempDir() + "stackscope_agent_alone_" + std::to_string(getpid());
  std::filesystem::create_directories(directory);
  const std::string agent = directory + "/libstackscope.so";
  std::filesystem::copy_file(STACKSCOPE_AGENT, agent, std::filesystem::copy_options::overwrite_existing);
  const std::string recording = directory + "/alone.ssr";

  int status = 0;
  const std::string output =
      run("'" + testJava() + "' -agentpath:" + agent + "=file=" + recording + " -cp '" WORKLOADS_JAR
          "' io.stackscope.workloads.Deflating 1000 2>" + directory + "/stderr.txt",
          status);
  const std::string errors = fileText(directory + "/stderr.txt");
  EXPECT_EQ(status, 0) << errors;
  EXPECT_NE(output.find("truth deflate"), std::string::npos) << output;  // the program ran to its end
  EXPECT_EQ(errors.find("stackscope:"), std::string::npos) << errors;  // nothing to complain of
  const std::string report =
      run("'" STACKSCOPE_BIN "' report '" + recording + "' --view methods --top 0 2>&1", status);
  std::filesystem::remove_all(directory);
  ASSERT_EQ(status, 0) << report;
  // Native frames recorded and named: zlib's exported functions by name, its static ones by their
  // .eh_frame start. Debian's JDK calls libz.so.1, Temurin's has zlib in libzip.so.
  EXPECT_TRUE(std::regex_search(report, std::regex(R"(\bdeflate|libz(ip)?\.so[.0-9]*\+0x[0-9a-f]+)"))) << report;
  EXPECT_NE(report.find("io.stackscope.workloads.Deflating.main"), std::string::npos) << report;
}

}  // namespace

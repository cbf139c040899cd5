// JVMs that start JVMs under `stackscope record`: every JVM must end up in its own complete
// recording (the bug: a child inherited the agent with the same file= and overwrote the
// parent's recording), and --no-children must keep the agent to the first JVM.
//
// Ground truth: SpawnsChild burns the same CPU time in parentWork (parent JVM) and childWork
// (child JVM), so at 10 ms each file holds about kBurnMs / 10 samples of its own method and
// none of the other's. Tolerance: at least half the due samples (a loaded machine delays
// timers, it does not add samples), and never the other JVM's method.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "harness.h"

namespace it {
namespace {

namespace fs = std::filesystem;

constexpr int kBurnMs = 600;
constexpr double kDueSamples = kBurnMs / 10.0;

// "pid NAME PID" lines printed by SpawnsChild.
std::map<std::string, long> pids(const std::string& out) {
  std::map<std::string, long> found;
  std::regex line("pid (\\w+) (\\d+)");
  for (std::sregex_iterator it(out.begin(), out.end(), line), end; it != end; ++it)
    found[(*it)[1]] = std::stol((*it)[2]);
  return found;
}

double methodTotal(const json& methods, const std::string& method) {
  const json* item = find(methods, "methods", "method", method);
  return item ? item->at("total").get<double>() : 0;
}

class ChildJvms : public RecordingTest {
 protected:
  std::string dir() const { return fs::path(file("x")).parent_path().string(); }

  std::vector<std::string> recordings() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir()))
      if (entry.path().extension() == ".ssr") names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // A recording that was finished, indexed, reads without warnings and is the JVM's with `pid`.
  json expectComplete(const std::string& path, long pid) {
    json info = query({"info", path});
    EXPECT_EQ(info.at("finished"), true) << path;
    EXPECT_EQ(info.at("indexed"), true) << path;
    EXPECT_EQ(info.at("recording").value("pid", 0L), pid) << path;
    json methods = report(path, {"--top", "0"});
    EXPECT_EQ(methods.at("warnings"), json::array()) << path;
    return methods;
  }
};

TEST_F(ChildJvms, RecordGivesTheChildJvmItsOwnFile) {
  ProcessResult rec = record({}, file("run.ssr"), "SpawnsChild", {std::to_string(kBurnMs)});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_NE(rec.out.find("child exit 0"), std::string::npos) << rec.out << rec.err;
  const std::map<std::string, long> pid = pids(rec.out);
  ASSERT_EQ(pid.size(), 2u) << rec.out;
  const std::string child_file = "run." + std::to_string(pid.at("child")) + ".ssr";
  EXPECT_EQ(recordings(), (std::vector<std::string>{child_file, "run.ssr"}));

  json parent = expectComplete(file("run.ssr"), pid.at("parent"));
  EXPECT_GE(methodTotal(parent, kWorkloads + "SpawnsChild.parentWork"), 0.5 * kDueSamples) << parent.dump(1);
  EXPECT_EQ(methodTotal(parent, kWorkloads + "SpawnsChild.childWork"), 0);
  json child = expectComplete(file(child_file), pid.at("child"));
  EXPECT_GE(methodTotal(child, kWorkloads + "SpawnsChild.childWork"), 0.5 * kDueSamples) << child.dump(1);
  EXPECT_EQ(methodTotal(child, kWorkloads + "SpawnsChild.parentWork"), 0);

  // record says what it wrote: both files, with their pids.
  EXPECT_NE(rec.err.find("2 JVMs recorded"), std::string::npos) << rec.err;
  EXPECT_NE(rec.err.find(child_file + " (pid " + std::to_string(pid.at("child")) + ")"), std::string::npos) << rec.err;
  EXPECT_NE(rec.err.find("run.ssr (pid " + std::to_string(pid.at("parent")) + ")"), std::string::npos) << rec.err;
}

TEST_F(ChildJvms, NoChildrenRecordsOnlyTheFirstJvm) {
  ProcessResult rec = record({"--no-children"}, file("run.ssr"), "SpawnsChild", {std::to_string(kBurnMs)});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_NE(rec.out.find("child exit 0"), std::string::npos) << rec.out << rec.err;
  const std::map<std::string, long> pid = pids(rec.out);
  ASSERT_EQ(pid.size(), 2u) << rec.out;
  EXPECT_EQ(recordings(), std::vector<std::string>{"run.ssr"});
  json parent = expectComplete(file("run.ssr"), pid.at("parent"));
  EXPECT_GE(methodTotal(parent, kWorkloads + "SpawnsChild.parentWork"), 0.5 * kDueSamples);
  EXPECT_EQ(rec.err.find("JVMs recorded"), std::string::npos) << rec.err;
}

TEST_F(ChildJvms, PidPatternInTheOutputNamesEveryJvm) {
  ProcessResult rec = record({}, file("run-%p.ssr"), "SpawnsChild", {"200"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::map<std::string, long> pid = pids(rec.out);
  ASSERT_EQ(pid.size(), 2u) << rec.out;
  const std::string parent_file = "run-" + std::to_string(pid.at("parent")) + ".ssr";
  const std::string child_file = "run-" + std::to_string(pid.at("child")) + ".ssr";
  std::vector<std::string> expected{parent_file, child_file};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(recordings(), expected);
  expectComplete(file(parent_file), pid.at("parent"));
  expectComplete(file(child_file), pid.at("child"));
  EXPECT_NE(rec.err.find(child_file + " (pid " + std::to_string(pid.at("child")) + ")"), std::string::npos) << rec.err;
}

// Two JVMs one after the other from a script: the second must not replace the first's file
// (no lock can tell, the first has ended), and an earlier recording named -o is replaced.
TEST_F(ChildJvms, JvmsRunOneAfterTheOtherEachKeepTheirFile) {
  std::ofstream(file("run.ssr")) << "an earlier recording";
  std::string java_args;
  for (const std::string& arg : javaCommand("SpawnsChild", {"200", "child"})) java_args += "'" + arg + "' ";
  ProcessResult rec = run({STACKSCOPE_BIN, "record", "-o", file("run.ssr"), "--", "/bin/sh", "-c",
                           java_args + "&& " + java_args});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::vector<long> children;
  std::regex line("pid child (\\d+)");
  for (std::sregex_iterator it(rec.out.begin(), rec.out.end(), line), end; it != end; ++it)
    children.push_back(std::stol((*it)[1]));
  ASSERT_EQ(children.size(), 2u) << rec.out;
  EXPECT_EQ(recordings(), (std::vector<std::string>{"run." + std::to_string(children[1]) + ".ssr", "run.ssr"}));
  expectComplete(file("run.ssr"), children[0]);
  expectComplete(file("run." + std::to_string(children[1]) + ".ssr"), children[1]);
}

// jshell runs the user's snippets in a second JVM that it starts; that JVM's recording must
// hold the snippet's method, and jshell's own must stay readable.
TEST_F(ChildJvms, JshellScriptRecordsBothJvms) {
  const fs::path jshell = fs::path(java()).parent_path() / "jshell";
  if (!fs::exists(jshell)) GTEST_SKIP() << "no jshell next to " << java();
  std::ofstream(file("burn.jsh")) << R"(
long burnCpu(long ms) {
  var mx = java.lang.management.ManagementFactory.getThreadMXBean();
  long end = mx.getCurrentThreadCpuTime() + ms * 1_000_000L, x = 1;
  while (mx.getCurrentThreadCpuTime() < end) for (int i = 0; i < 20000; i++) x = x * 6364136223846793005L + 1;
  return x;
}
System.out.println("burned " + burnCpu()" + std::to_string(kBurnMs) + R"());
System.out.println("pid exec " + ProcessHandle.current().pid());
/exit
)";
  ProcessResult rec = run({STACKSCOPE_BIN, "record", "-o", file("js.ssr"), "--", jshell.string(), "-R-Xmx64m",
                           "-J-Xmx128m", file("burn.jsh")});
  ASSERT_EQ(rec.exit_code, 0) << rec.out << rec.err;
  ASSERT_NE(rec.out.find("burned "), std::string::npos) << rec.out << rec.err;
  const std::map<std::string, long> pid = pids(rec.out);
  ASSERT_EQ(pid.count("exec"), 1u) << rec.out;
  const std::string exec_file = "js." + std::to_string(pid.at("exec")) + ".ssr";
  EXPECT_EQ(recordings(), (std::vector<std::string>{exec_file, "js.ssr"}));

  json info = query({"info", file("js.ssr")});
  expectComplete(file("js.ssr"), info.at("recording").value("pid", 0L));
  EXPECT_NE(info.at("recording").value("pid", 0L), pid.at("exec"));
  json exec = expectComplete(file(exec_file), pid.at("exec"));
  double burn = 0;
  for (const json& m : exec.at("methods"))
    if (m.value("method", "").ends_with(".burnCpu")) burn += m.at("total").get<double>();
  EXPECT_GE(burn, 0.5 * kDueSamples) << exec.dump(1);
}

}  // namespace
}  // namespace it

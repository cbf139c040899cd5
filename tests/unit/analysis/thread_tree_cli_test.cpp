// `summary`'s thread tree and the stacks merged at the call that started each thread
// (--merge-threads), on a recording whose ThreadParent records are known by construction.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {
namespace {

// main (java id 1) starts pool (20) in app.Main.main through Thread.start; pool starts worker
// (21) in app.Pool.grow; idle (22) is started by main and has no samples. main has 2 samples,
// pool 1, worker 3.
void writeThreadTree(const std::string& path) {
  format::RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  writeTestInfo(w, "cpu", 0, 1);
  w.writeMethod({1, w.internString("app.Main"), w.internString("main"), w.internString("()V"), 0, {}});
  w.writeMethod({2, w.internString("app.Pool"), w.internString("grow"), w.internString("()V"), 0, {}});
  w.writeMethod({3, w.internString("java.lang.Thread"), w.internString("start"), w.internString("()V"), 0, {}});
  w.writeMethod({4, w.internString("app.Worker"), w.internString("run"), w.internString("()V"), 0, {}});
  w.writeThread({1, "main", 101, 1});
  w.writeThread({2, "pool", 102, 20});
  w.writeThread({3, "worker", 103, 21});
  w.writeThread({4, "idle", 104, 22});
  const format::Frame main_start[] = {{3, 0}, {1, 5}}, pool_start[] = {{3, 0}, {2, 7}}, run{4, 1}, main_only{1, 2};
  const uint32_t at_main = w.internStack(main_start, 2), at_pool = w.internStack(pool_start, 2);
  const uint32_t running = w.internStack(&run, 1), in_main = w.internStack(&main_only, 1);
  w.writeThreadParent({1 * kMs, 1, at_main, 20});
  w.writeThreadParent({2 * kMs, 2, at_pool, 21});
  w.writeThreadParent({3 * kMs, 1, at_main, 22});
  w.writeThreadParent({4 * kMs, 3, at_pool, 21});  // a second parent for 21: ignored
  w.writeThreadParent({5 * kMs, 1, at_main, 99});  // a thread the recording never met
  for (int64_t t : {10, 20}) w.writeSample({t * kMs, 1, in_main, format::ThreadState::Running, 1});
  w.writeSample({10 * kMs, 2, running, format::ThreadState::Running, 1});
  for (int64_t t : {10, 20, 30}) w.writeSample({t * kMs, 3, running, format::ThreadState::Running, 1});
  if (!w.finish(40 * kMs)) throw std::runtime_error(w.lastError());
}

class ThreadTree : public ::testing::Test {
 protected:
  void SetUp() override { writeThreadTree(dir_.file("tree.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }
  TempDir dir_;
};

TEST_F(ThreadTree, SummarySaysWhichThreadStartedWhich) {
  const CliResult r = run("summary tree.ssr --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json s = nlohmann::json::parse(r.out);
  std::vector<std::string> tree;
  for (const auto& t : s["threads"]["tree"])
    tree.push_back(std::string(t["depth"].get<size_t>(), ' ') + t["thread"].get<std::string>() + " " +
                   std::to_string(t["value"].get<int>()) + "/" + std::to_string(t["with_started"].get<int>()) + " " +
                   (t["started_at"].is_null() ? "-" : t["started_at"].get<std::string>()));
  EXPECT_EQ(tree, (std::vector<std::string>{"main 2/6 -", " pool 1/4 app.Main.main", "  worker 3/3 app.Pool.grow"}))
      << "idle has no samples and starts nothing: left out";
  const CliResult text = run("summary tree.ssr");
  EXPECT_NE(text.out.find("      worker  (app.Pool.grow)"), std::string::npos) << text.out;
}

// Folded stacks ("a;b;c N" lines) by their stack.
std::map<std::string, int> folded(const std::string& text) {
  std::map<std::string, int> stacks;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) stacks[line.substr(0, line.rfind(' '))] = std::stoi(line.substr(line.rfind(' ') + 1));
  return stacks;
}

// Each thread's stacks below the call that started it, after a [thread NAME] frame.
TEST_F(ThreadTree, MergedStacksHangBelowTheStartingCall) {
  const CliResult r = run("export tree.ssr --format collapsed --merge-threads -o -");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::map<std::string, int> stacks = folded(r.out);
  const std::string pool = "app.Main.main;java.lang.Thread.start;[thread pool]";
  EXPECT_EQ(stacks, (std::map<std::string, int>{
                        {"app.Main.main", 2},
                        {pool + ";app.Worker.run", 1},
                        {pool + ";app.Pool.grow;java.lang.Thread.start;[thread worker];app.Worker.run", 3}}));
  // Without the option, each thread's own stacks.
  const CliResult plain = run("export tree.ssr --format collapsed -o -");
  EXPECT_EQ(folded(plain.out), (std::map<std::string, int>{{"app.Main.main", 2}, {"app.Worker.run", 4}}));
}

// Worker.run runs in pool (thread level 1) and in worker (level 2): two nodes, no recursion.
TEST_F(ThreadTree, MergedGraphKeepsTheThreadLevelsApart) {
  ASSERT_EQ(run("graph tree.ssr --merge-threads --prune 0 -o g.dot").exit_code, 0);
  const std::string dot = readFile(dir_.file("g.dot"));
  EXPECT_NE(dot.find("app.Worker.run [thread level 1]"), std::string::npos) << dot;
  EXPECT_NE(dot.find("app.Worker.run [thread level 2]"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("rc="), std::string::npos) << "no recursion made up by the merge\n" << dot;
}

}  // namespace
}  // namespace stackscope::testing

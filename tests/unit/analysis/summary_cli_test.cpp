// `stackscope summary` on the reference recording (fixture.h): every figure known by
// construction, and equal to what the graph and threads views say of the same events.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "fixture.h"

namespace stackscope::testing {
namespace {

class SummaryCli : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }
  nlohmann::json summary(const std::string& args = "") {
    const CliResult r = run("summary ref.ssr --json " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  // "name self total" of each part of a list.
  static std::vector<std::string> parts(const nlohmann::json& list) {
    std::vector<std::string> out;
    for (const auto& p : list)
      out.push_back(p["name"].get<std::string>() + " " + std::to_string(p["self"].get<int>()) + " " +
                    std::to_string(p["total"].get<int>()));
    return out;
  }
  TempDir dir_;
};

TEST_F(SummaryCli, GraphRecursionPathAndHotSpotsAreKnown) {
  const nlohmann::json s = summary();
  EXPECT_EQ(s["view"], "summary");
  EXPECT_EQ(s["total"], 14);
  // main, a, leaf, b, run, sleep; main->a 7, a->leaf 3, a->b 2, b->a 2 (recursive), run->a 3, run->sleep 4.
  EXPECT_EQ(s["graph"]["methods"], 6);
  EXPECT_EQ(s["graph"]["calls"], 6);
  EXPECT_EQ(s["graph"]["recursive_calls"], 1);
  EXPECT_EQ(s["graph"]["calls_value"], 21);
  EXPECT_EQ(s["graph"]["recursive_value"], 2);
  EXPECT_EQ(s["deepest_recursion"]["method"], "app.Work.a");  // a and b twice on main>a>b>a>b; a first by name
  EXPECT_EQ(s["deepest_recursion"]["times"], 2);
  // main and run both hold 7: main first by name; then a (7) and its hottest callee, leaf (3).
  std::vector<std::string> path;
  for (const auto& step : s["hottest_path"]) path.push_back(step["method"].get<std::string>() + " " + std::to_string(step["total"].get<int>()));
  EXPECT_EQ(path, (std::vector<std::string>{"app.Main.main 7", "app.Work.a 7", "app.Util$Inner.leaf 3"}));
  EXPECT_EQ(parts(s["hottest_methods"]),
            (std::vector<std::string>{"app.Work.a 5 10", "java.lang.Thread.sleep 4 4", "app.Util$Inner.leaf 3 3",
                                      "app.Work.b 2 2", "app.Main.main 0 7", "app.Worker.run 0 7"}));
  EXPECT_EQ(s["hottest_calls"][0]["caller"], "app.Main.main");
  EXPECT_EQ(s["hottest_calls"][0]["value"], 7);
  EXPECT_EQ(s["threads"]["count"], 3);
  EXPECT_EQ(parts(s["threads"]["hottest"]), (std::vector<std::string>{"main 7 7", "sleeper 4 4", "worker-1 3 3"}));
  EXPECT_TRUE(s["threads"]["tree"].is_null()) << "no ThreadParent records: said, not guessed";
  EXPECT_EQ(parts(s["libraries"]), (std::vector<std::string>{"application classes 10 14", "JDK 4 4"}));
  EXPECT_EQ(parts(s["packages"]), (std::vector<std::string>{"app 10 14", "java.lang 4 4"}));
}

TEST_F(SummaryCli, SelectionAndTopNarrowIt) {
  const nlohmann::json s = summary("--where 'thread=main' --top 2");
  EXPECT_EQ(s["total"], 7);
  EXPECT_EQ(s["threads"]["count"], 1);
  EXPECT_EQ(parts(s["hottest_methods"]), (std::vector<std::string>{"app.Util$Inner.leaf 3 3", "app.Work.a 2 7"}));
  EXPECT_EQ(s["hottest_calls"].size(), 2u);
}

TEST_F(SummaryCli, TextNamesEverySection) {
  const CliResult r = run("summary ref.ssr");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* section : {"Call graph:        6 methods, 6 calls", "Deepest recursion: app.Work.a, 2 times on one stack",
                              "Hottest path", "Hottest methods", "Hottest calls", "Hottest threads", "Libraries", "Packages",
                              "which started which: not in this recording"})
    EXPECT_NE(r.out.find(section), std::string::npos) << section << "\n" << r.out;
}

}  // namespace
}  // namespace stackscope::testing

// The call graph on the reference recording (fixture.h), whose recursion and shares are known by
// construction: report --view graph, pruning, and `stackscope graph` read back by Graphviz's dot.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixture.h"

namespace stackscope::testing {
namespace {

class GraphCli : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  nlohmann::json graph(const std::string& args) {
    const CliResult r = runCli("report ref.ssr --view graph --json --no-cache " + args, dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static nlohmann::json find(const nlohmann::json& list, const std::string& key, const std::string& value,
                             const std::string& key2 = "", const std::string& value2 = "") {
    for (const nlohmann::json& item : list)
      if (item.at(key) == value && (key2.empty() || item.at(key2) == value2)) return item;
    return nullptr;
  }
  TempDir dir_;
};

const std::string kMain = "app.Main.main", kA = "app.Work.a", kB = "app.Work.b", kRun = "app.Worker.run";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(GraphCli, RecursionIsCountedOncePerSample) {
  // 14 samples. a is on SA (3), SB (2), SR (2, twice on the stack) and SW (3): 10, not 12.
  const nlohmann::json g = graph("");
  EXPECT_EQ(g.at("total"), 14);
  EXPECT_EQ(find(g.at("nodes"), "method", kA).at("total"), 10);
  EXPECT_EQ(find(g.at("nodes"), "method", kB).at("total"), 2);
  EXPECT_EQ(find(g.at("nodes"), "method", kB).at("self"), 2);
  // SR = main > a > b > a > b: a -> b and b -> a each once per sample; b -> a closes the cycle.
  const nlohmann::json ab = find(g.at("edges"), "caller", kA, "callee", kB);
  const nlohmann::json ba = find(g.at("edges"), "caller", kB, "callee", kA);
  EXPECT_EQ(ab.at("value"), 2);
  EXPECT_EQ(ab.at("recursive"), 0);
  EXPECT_EQ(ba.at("value"), 2);
  EXPECT_EQ(ba.at("recursive"), 2);
  EXPECT_EQ(find(g.at("edges"), "caller", kMain, "callee", kA).at("value"), 7);
  for (const nlohmann::json& edge : g.at("edges")) EXPECT_LE(edge.at("value").get<int>(), 14) << edge.dump();
}

TEST_F(GraphCli, PruningKeepsTheTotalsAndTheGraphConnected) {
  // At 30 % (4.2 samples) main (7), a (10) and run (7) stay; leaf (3), b (2) and sleep (4) go,
  // their self values to the nearest kept frame below them.
  const CliResult r = runCli("graph ref.ssr -o ref.dot --prune 30%", dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dot = readFile(dir_.file("ref.dot"));
  EXPECT_NE(dot.find("app.Work.a\\nself 71.43%  total 71.43%"), std::string::npos) << dot;  // every sample with a on the stack ends in a now
  EXPECT_NE(dot.find("app.Worker.run\\nself 28.57%  total 50.00%"), std::string::npos) << dot;  // sleep's 4
  EXPECT_EQ(dot.find("app.Util$Inner.leaf"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("Thread.sleep"), std::string::npos) << dot;
  // Of the calls left, main -> a (7) stays; run -> a (3) and a -> a (2, b left out) go: below
  // 4.2, and not a's heaviest caller.
  EXPECT_EQ(count(dot, " -> "), 1u) << dot;
}

TEST_F(GraphCli, MaxNodesKeepsTheHottestMethods) {
  // The 3 hottest by total: a (10), main (7), run (7); then sleep (4), leaf (3) and b (2) go,
  // as with --prune 30%. Without pruning by share, run -> a (3) stays, and so does a -> a (2):
  // main > a > b > a > b with b left out.
  const CliResult r = runCli("graph ref.ssr -o ref.dot --prune 0 --max-nodes 3", dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string dot = readFile(dir_.file("ref.dot"));
  EXPECT_NE(dot.find("app.Work.a\\nself 71.43%  total 71.43%"), std::string::npos) << dot;
  EXPECT_NE(dot.find("app.Worker.run\\nself 28.57%  total 50.00%"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("Thread.sleep"), std::string::npos) << dot;
  EXPECT_EQ(count(dot, " -> "), 3u) << dot;
  EXPECT_NE(dot.find("n0 -> n0"), std::string::npos) << dot;
  EXPECT_NE(dot.find("the 3 hottest methods"), std::string::npos) << dot;
}

TEST_F(GraphCli, DotDrawsTheGraph) {
  ASSERT_EQ(std::system("command -v dot >/dev/null"), 0) << "Graphviz's dot is needed: scripts/setup.sh installs graphviz";
  const CliResult r = runCli("graph ref.ssr -o ref.svg --prune 0", dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = readFile(dir_.file("ref.svg"));
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("app.Util$Inner.leaf"), std::string::npos);
  EXPECT_NE(svg.find("rc=2"), std::string::npos) << "the recursive call is labelled";
  const CliResult bad = runCli("graph ref.ssr -o ref.png", dir_.path());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("name a .svg or a .dot file"), std::string::npos) << bad.err;
  const CliResult prune = runCli("graph ref.ssr -o ref.dot --prune lots", dir_.path());
  EXPECT_EQ(prune.exit_code, 1);
  EXPECT_NE(prune.err.find("--prune 'lots'"), std::string::npos) << prune.err;
}

}  // namespace
}  // namespace stackscope::testing

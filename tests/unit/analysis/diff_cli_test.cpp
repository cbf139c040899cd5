// `stackscope diff` on the reference recording (fixture.h): two snapshots of one file, whose
// shares are known by construction, and a recording against itself.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "fixture.h"

namespace stackscope::testing {
namespace {

class DiffCli : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  nlohmann::json diff(const std::string& args) {
    const CliResult r = runCli("diff " + args + " --json", dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static const nlohmann::json& row(const nlohmann::json& diff, const std::string& method) {
    for (const nlohmann::json& m : diff.at("methods"))
      if (m.at("method") == method) return m;
    ADD_FAILURE() << method << " not in " << diff.dump(1);
    static const nlohmann::json none = nlohmann::json::object();
    return none;
  }
  TempDir dir_;
};

TEST_F(DiffCli, TwoSnapshotsOfOneRecordingDifferByTheirShares) {
  // init [0, 25ms): 9 samples, leaf self 2 (SA at 10, 20), sleep 3; work [35, 65ms): 3 samples,
  // b self 2 (SR at 40, 50), leaf 1 (SA at 60), sleep none.
  const nlohmann::json d = diff("ref.ssr ref.ssr --base-snapshot init --snapshot work");
  EXPECT_EQ(d.at("base").at("samples"), 9);
  EXPECT_EQ(d.at("new").at("samples"), 3);
  EXPECT_EQ(d.at("methods")[0].at("method"), "app.Work.b") << "the biggest change comes first";
  EXPECT_NEAR(row(d, "app.Work.b").at("self_change").get<double>(), 66.6667, 1e-3);
  EXPECT_NEAR(row(d, "app.Util$Inner.leaf").at("base_self").get<double>(), 22.2222, 1e-3);
  EXPECT_NEAR(row(d, "app.Util$Inner.leaf").at("self_change").get<double>(), 11.1111, 1e-3);
  EXPECT_NEAR(row(d, "java.lang.Thread.sleep").at("self_change").get<double>(), -33.3333, 1e-3);
  EXPECT_NEAR(row(d, "app.Main.main").at("total_change").get<double>(), 100 - 33.3333, 1e-3);
}

TEST_F(DiffCli, ARecordingAgainstItselfChangesNothing) {
  const nlohmann::json d = diff("ref.ssr ref.ssr --where 'not thread=sleeper'");
  ASSERT_FALSE(d.at("methods").empty());
  for (const nlohmann::json& m : d.at("methods")) {
    EXPECT_EQ(m.at("self_change"), 0.0) << m.dump();
    EXPECT_EQ(m.at("total_change"), 0.0) << m.dump();
  }
}

// The same two snapshots path by path: init's 9 samples are main>a (3: leaf 2) and run (6: a 3,
// sleep 3); work's 3 are main>a (leaf 1, and the recursion a>b>a>b 2).
TEST_F(DiffCli, TreeViewComparesCallPaths) {
  const nlohmann::json d = diff("ref.ssr ref.ssr --base-snapshot init --snapshot work --view tree");
  EXPECT_EQ(d.at("view"), "diff-tree");
  std::vector<std::string> rows;
  for (const nlohmann::json& n : d.at("nodes")) {
    char line[160];
    std::snprintf(line, sizeof line, "%d %s %.2f %.2f %+.2f", n.at("level").get<int>(), n.at("method").get<std::string>().c_str(),
                  n.at("base_total").get<double>(), n.at("new_total").get<double>(), n.at("total_change").get<double>());
    rows.push_back(line);
  }
  EXPECT_EQ(rows, (std::vector<std::string>{
                      "0 app.Main.main 33.33 100.00 +66.67", "1 app.Work.a 33.33 100.00 +66.67",
                      "2 app.Work.b 0.00 66.67 +66.67", "3 app.Work.a 0.00 66.67 +66.67", "4 app.Work.b 0.00 66.67 +66.67",
                      "2 app.Util$Inner.leaf 22.22 33.33 +11.11", "0 app.Worker.run 66.67 0.00 -66.67",
                      "1 app.Work.a 33.33 0.00 -33.33", "1 java.lang.Thread.sleep 33.33 0.00 -33.33"}));
  const CliResult text = runCli("diff ref.ssr ref.ssr --base-snapshot init --snapshot work --view tree --top 3", dir_.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("     app.Work.b"), std::string::npos) << "indented by level\n" << text.out;
  EXPECT_NE(text.out.find("3 of 9 call paths"), std::string::npos) << text.out;
}

// The differential flame graph's data: the new side's tree with the baseline's value at each path.
TEST_F(DiffCli, FlameBaselineHoldsBothSidesPerPath) {
  const CliResult r =
      runCli("flame ref.ssr --snapshot work --baseline ref.ssr --baseline-snapshot init -o d.html", dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = readFile(dir_.file("d.html"));
  const std::string open = "<script id=\"data\" type=\"application/json\">";
  const size_t from = page.find(open) + open.size();
  const nlohmann::json data = nlohmann::json::parse(page.substr(from, page.find("</script>", from) - from));
  EXPECT_EQ(data.at("baseline").at("total"), 9);
  EXPECT_EQ(data.at("baseline").at("onlyInBaseline"), 6) << "run's subtree: never in work";
  const nlohmann::json& kind = data.at("kinds").at(0);
  ASSERT_EQ(data.at("kinds").size(), 1u);
  // Each node's path of names, to find main>a>leaf.
  const auto name = [&](size_t node) { return kind.at("frames").at(kind.at("nodes").at(node).at(0).get<size_t>()).at(0).get<std::string>(); };
  bool found = false;
  for (size_t i = 1; i < kind.at("nodes").size(); ++i) {
    const nlohmann::json& n = kind.at("nodes").at(i);
    if (name(i) != "app.Util$Inner.leaf") continue;
    found = true;
    EXPECT_EQ(n.at(2), nlohmann::json::array({1})) << "work: SA at 60 ms";
    EXPECT_EQ(n.at(3), nlohmann::json::array({2})) << "init: SA at 10 and 20 ms";
  }
  EXPECT_TRUE(found);
  const CliResult mismatch = runCli("flame ref.ssr --baseline ref.ssr --event wall --metric time -o x.html --baseline-snapshot nope", dir_.path());
  EXPECT_EQ(mismatch.exit_code, 1);
}

TEST_F(DiffCli, BadRequestsAreClearErrors) {
  const CliResult missing = runCli("diff ref.ssr nothing.ssr", dir_.path());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open 'nothing.ssr'"), std::string::npos) << missing.err;
  const CliResult snapshot = runCli("diff ref.ssr ref.ssr --base-snapshot nope", dir_.path());
  EXPECT_EQ(snapshot.exit_code, 1);
  EXPECT_NE(snapshot.err.find("unknown snapshot 'nope'"), std::string::npos) << snapshot.err;
}

}  // namespace
}  // namespace stackscope::testing

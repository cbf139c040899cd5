// Names through the command, on the names recording (names_fixture.h): overloads selected by
// their parameters in resource names and --where, a name that matches no method said so,
// raw names kept in JSON, lines and kinds on demand.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixture.h"
#include "names_fixture.h"

namespace stackscope::testing {
namespace {

class NamesCli : public ::testing::Test {
 protected:
  void SetUp() override { writeNamesRecording(dir_.file("names.ssr")); }
  CliResult run(const std::string& args) { return runCli("report names.ssr --no-cache " + args, dir_.path()); }
  nlohmann::json json(const std::string& args) {
    const CliResult r = run(args + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static const nlohmann::json* row(const nlohmann::json& report, const std::string& array, const std::string& display) {
    for (const auto& item : report.at(array))
      if (item.at("display") == display) return &item;
    return nullptr;
  }
  TempDir dir_;
};

TEST_F(NamesCli, ResourceNamesAndWhereSelectOneOverload) {
  EXPECT_EQ(json("--view 'methods[app.Main.work(int)]/methods'")["samples"], 7);
  EXPECT_EQ(json("--view 'methods[app.Main.work(String)]/methods'")["samples"], 3);
  EXPECT_EQ(json("--view 'methods[app.Main.work(I)D,app.Main.work(java.lang.String)]/methods'")["samples"], 10);
  EXPECT_EQ(json("--where 'method=app.Main.work(int)'")["samples"], 7);
  EXPECT_EQ(json("--where 'path~app.Main.work(Ljava/lang/String;)D'")["samples"], 3);
  const auto view = json("--view 'methods[app.Main.work(int)]/callers'");
  EXPECT_EQ(view["resource"], "methods[app.Main.work(int)]/callers");
  EXPECT_EQ(view["focus_samples"], 7);
}

TEST_F(NamesCli, ANameThatMatchesNoMethodIsANoteNotASilentEmptyView) {
  const CliResult text = run("--view 'methods[app.Main.work(long)]/methods'");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.err.find("stackscope: note: 'app.Main.work(long)' matches no method of the recording"), std::string::npos)
      << text.err;
  // The tracker's example: the package left out.
  EXPECT_NE(run("--view 'methods[Main.work(I)D]/methods'").err.find("(did you mean app.Main.work(int)?)"), std::string::npos);
  const auto j = json("--where 'method=app.Main.wrok or thread=main'");
  EXPECT_EQ(j["unmatched"], nlohmann::json::array({"app.Main.wrok"}));
  EXPECT_EQ(j["samples"], 12);  // the filter still holds: the note does not change the view
  EXPECT_FALSE(json("--where 'method=app.Main.work(int)'").contains("unmatched"));
  // Cached views repeat their notes.
  const std::string cached = "report names.ssr --view 'methods[app.Nope.x]/methods'";
  runCli(cached, dir_.path());
  EXPECT_NE(runCli(cached, dir_.path()).err.find("'app.Nope.x' matches no method"), std::string::npos);
}

TEST_F(NamesCli, JsonKeepsTheRawNameOfNormalisedMethods) {
  const auto j = json("");
  const nlohmann::json* lambda = row(j, "methods", "app.Main$$Lambda.run");
  ASSERT_NE(lambda, nullptr) << j.dump(1);
  EXPECT_EQ((*lambda)["method"], "app.Main$$Lambda.run");
  EXPECT_EQ((*lambda)["raw"], "app.Main$$Lambda$14.0x0000000800c0b000.run");
  EXPECT_EQ((*lambda)["raw_merged"], nlohmann::json::array({"app.Main$$Lambda$14.0x0000000800c0b000.run",
                                                            "app.Main$$Lambda.0x00007f3a1c00a218.run"}));
  EXPECT_EQ((*lambda)["total"], 3);
  const nlohmann::json* work = row(j, "methods", "app.Main.work(int)");
  ASSERT_NE(work, nullptr);
  EXPECT_EQ((*work)["method"], "app.Main.work");  // DESIGN §5: package.Class.method
  EXPECT_EQ((*work)["params"], "(int)");
  EXPECT_EQ((*work)["signature"], "(I)D");
  EXPECT_FALSE(work->contains("raw_merged"));
  EXPECT_EQ((*row(j, "methods", "java.lang.Object.hashCode"))["kind"], "native");
}

TEST_F(NamesCli, LinesAndKindsOnDemand) {
  const CliResult text = run("--lines");
  EXPECT_NE(text.out.find("app.Main.work(int):22"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("app.Main.work(int):21"), std::string::npos) << text.out;
  EXPECT_EQ(run("").out.find("Kind"), std::string::npos);
  const CliResult kinds = run("--view tree --kinds");
  EXPECT_NE(kinds.out.find("native  "), std::string::npos) << kinds.out;
  const auto j = json("--lines");
  const nlohmann::json* line22 = nullptr;
  for (const auto& m : j["methods"])
    if (m["display"] == "app.Main.work(int)" && m["line"] == 22) line22 = &m;
  ASSERT_NE(line22, nullptr) << j.dump(1);
  EXPECT_EQ((*line22)["self"], 4);
  EXPECT_FALSE(json("")["methods"][0].contains("line"));
}

}  // namespace
}  // namespace stackscope::testing

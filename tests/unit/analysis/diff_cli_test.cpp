// `stackscope diff` on the reference recording (fixture.h): two snapshots of one file, whose
// shares are known by construction, and a recording against itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

// Snapshots, logical filters, resource names and the view cache through the command, on the
// reference recording (fixture.h: phases "init" [0, 25ms) and "work" [35ms, 65ms), point
// markers a at 35ms and b at 55ms, users u1/u2).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixture.h"

namespace stackscope::testing {
namespace {

class NavigationCli : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }
  nlohmann::json json(const std::string& args) {
    const CliResult r = run(args + " --json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  void expectError(const std::string& args, const std::string& needle) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.err.rfind("stackscope: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  }
  TempDir dir_;
};

TEST_F(NavigationCli, BadFiltersNamesAndIntervalsAreClearErrors) {
  expectError("report ref.ssr --where 'usr=u1'", "unknown field 'usr'");
  expectError("report ref.ssr --where 'user=u1 and (thread=main'", "expected ')'");
  expectError("report ref.ssr --where 'state=sleepy'", "unknown state 'sleepy'");
  expectError("report ref.ssr --snapshot wrok", "unknown snapshot 'wrok'");
  expectError("report ref.ssr --snapshot b..a", "no point marker 'b' followed by");
  expectError("report ref.ssr --view 'methods[app.Work.a]/thread'", "unknown element 'thread'");
  expectError("report ref.ssr --view callers", "the callers view needs a method");
  expectError("snapshot ref.ssr --name x --parent nothing", "unknown snapshot 'nothing'");
  expectError("snapshot ref.ssr --name x --where 'nope=1'", "unknown field 'nope'");
}

TEST_F(NavigationCli, WhereErrorPointsAtThePosition) {
  const CliResult r = run("report ref.ssr --where 'user=u1 and usr=u2'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(at position 13)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n  user=u1 and usr=u2\n              ^"), std::string::npos) << r.err;
}

TEST_F(NavigationCli, FiltersCombineWithTimeWindows) {
  // main's samples at 0..60ms; [20ms, 50ms) keeps 20 (u1), 30 (u1, blocked), 40 (u2).
  EXPECT_EQ(json("report ref.ssr --from 20ms --to 50ms --where thread=main")["samples"], 3);
  EXPECT_EQ(json("report ref.ssr --from 20ms --to 50ms --where 'thread=main and user=u1'")["samples"], 2);
  EXPECT_EQ(json("report ref.ssr --snapshot work --where 'user=u2'")["samples"], 3);
  EXPECT_EQ(json("report ref.ssr --snapshot work --from 50ms --where 'user=u2'")["samples"], 2);
}

TEST_F(NavigationCli, SavedSnapshotsNestAndAreListed) {
  ASSERT_EQ(run("snapshot ref.ssr --name early --to 32ms --where 'user=u1'").exit_code, 0);
  ASSERT_EQ(run("snapshot ref.ssr --name early-main --parent early --where thread=main").exit_code, 0);
  ASSERT_EQ(run("snapshot ref.ssr --name early-main-late --parent early-main --from 15ms").exit_code, 0);
  EXPECT_EQ(json("report ref.ssr --snapshot early")["samples"], 7);  // main 0..30 and the worker's 3
  EXPECT_EQ(json("report ref.ssr --snapshot early-main")["samples"], 4);
  const auto late = json("report ref.ssr --snapshot early-main-late");
  EXPECT_EQ(late["samples"], 2);  // main at 20 and 30
  EXPECT_EQ(late["snapshot"], "early-main-late");
  EXPECT_EQ(late["where"], (nlohmann::json{"user=u1", "thread=main"}));
  // The recording itself is never rewritten: the definitions live in the sidecar.
  EXPECT_TRUE(std::filesystem::exists(dir_.file("ref.ssr.snapshots.json")));

  const auto list = json("snapshots ref.ssr");
  std::map<std::string, int> samples;
  for (const auto& s : list["snapshots"]) samples[s["name"]] = s["samples"];
  EXPECT_EQ(samples["early"], 7);
  EXPECT_EQ(samples["early-main-late"], 2);
  EXPECT_EQ(samples["init"], 9);  // main 0, 10, 20; sleeper 0, 10, 20; worker 5 and 15 (weight 2)
  EXPECT_EQ(samples["work"], 3);
  EXPECT_EQ(list["markers"].size(), 6u);
  const CliResult text = run("snapshots ref.ssr");
  EXPECT_NE(text.out.find("early-main-late"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Markers"), std::string::npos) << text.out;
}

TEST_F(NavigationCli, EveryViewCarriesItsResourceNameAndNamesRoundTrip) {
  const auto view = json("report ref.ssr --view 'threads[\"main\"]/methods[app.Work.a,\"app.Work.b\"]/callers'");
  EXPECT_EQ(view["resource"], "threads[main]/methods[app.Work.a,app.Work.b]/callers");
  EXPECT_EQ(view["focus_samples"], 7);
  const auto again = json("report ref.ssr --view '" + view["resource"].get<std::string>() + "'");
  EXPECT_EQ(again["resource"], view["resource"]);
  EXPECT_EQ(again["nodes"], view["nodes"]);
  EXPECT_EQ(json("report ref.ssr --view tree")["resource"], "tree");
}

TEST_F(NavigationCli, CacheHitsMissesAndNoticesAChangedRecording) {
  const CliResult first = run("report ref.ssr --view 'methods[app.Work.a]/threads'");
  ASSERT_EQ(first.exit_code, 0);
  ASSERT_TRUE(std::filesystem::exists(dir_.file("ref.ssr.cache")));
  // A hit is served without writing the entry again (a miss replaces it: a new inode).
  const auto inodes = [&] {
    std::set<uint64_t> out;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.file("ref.ssr.cache"))) {
      struct stat st {};
      ::stat(entry.path().c_str(), &st);
      out.insert(st.st_ino);
    }
    return out;
  };
  const auto before = inodes();
  ASSERT_FALSE(before.empty());
  EXPECT_EQ(run("report ref.ssr --view 'methods[app.Work.a]/threads'").out, first.out);
  EXPECT_EQ(inodes(), before);
  // An entry edited behind the cache's back fails its checksum: recomputed, never served.
  for (const auto& entry : std::filesystem::directory_iterator(dir_.file("ref.ssr.cache")))
    std::ofstream(entry.path(), std::ios::app) << "SERVED FROM CACHE\n";
  EXPECT_EQ(run("report ref.ssr --view 'methods[app.Work.a]/threads'").out, first.out);
  EXPECT_EQ(run("report ref.ssr --view 'methods[app.Work.a]/threads' --no-cache").out, first.out);
  EXPECT_EQ(run("report ref.ssr --view 'methods[app.Work.b]/threads'").out.find("SERVED FROM CACHE"), std::string::npos);
  // A rewritten recording (different content and time stamp) invalidates every entry.
  ::usleep(20000);
  writeReferenceRecording(dir_.file("ref.ssr"), false);
  const CliResult after = run("report ref.ssr --view 'methods[app.Work.a]/threads'");
  EXPECT_EQ(after.out.find("SERVED FROM CACHE"), std::string::npos);
  EXPECT_NE(after.out.find("unfinished"), std::string::npos) << after.out;
}

}  // namespace
}  // namespace stackscope::testing

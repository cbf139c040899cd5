// `stackscope export` on the reference recording (fixture.h), each format read back by its
// reader: collapsed stacks parsed here, pprof by `go tool pprof` (Debian's golang-go), speedscope
// by a JSON parser and checked against the format's rules (frame indexes, weights, unit).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_runner.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {
namespace {

class ExportsCli : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }
  // "outer;...;inner" -> value, from folded stacks.
  std::map<std::string, uint64_t> collapsed(const std::string& args) {
    const CliResult r = run("export ref.ssr --format collapsed -o - " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, uint64_t> stacks;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      const size_t space = line.rfind(' ');
      EXPECT_NE(space, std::string::npos) << line;
      EXPECT_TRUE(stacks.emplace(line.substr(0, space), std::stoull(line.substr(space + 1))).second)
          << "a stack printed twice: " << line;
    }
    return stacks;
  }
  TempDir dir_;
};

// What a shell command printed on its standard output and error.
std::string shellOutput(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

const std::string kMain = "app.Main.main", kA = "app.Work.a", kB = "app.Work.b";

TEST_F(ExportsCli, CollapsedStacksAreTheSamplesPerPath) {
  const std::map<std::string, uint64_t> stacks = collapsed("");
  // fixture.h: SA main>a>leaf at 10, 20, 60; SB main>a at 0, 30; SR at 40, 50; SW (run>a) 1 + 2;
  // SS run... sleep 4.
  EXPECT_EQ(stacks.at(kMain + ";" + kA + ";app.Util$Inner.leaf"), 3u);
  EXPECT_EQ(stacks.at(kMain + ";" + kA), 2u);
  EXPECT_EQ(stacks.at(kMain + ";" + kA + ";" + kB + ";" + kA + ";" + kB), 2u);
  EXPECT_EQ(stacks.at("app.Worker.run;" + kA), 3u);
  EXPECT_EQ(stacks.at("app.Worker.run;java.lang.Thread.sleep"), 4u);
  uint64_t total = 0;
  for (const auto& [stack, value] : stacks) total += value;
  const CliResult report = run("report ref.ssr --json");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(total, nlohmann::json::parse(report.out).at("samples").get<uint64_t>());
}

TEST_F(ExportsCli, TheSelectionNarrowsTheExport) {
  const std::map<std::string, uint64_t> worker = collapsed("--where 'thread=worker-1'");
  EXPECT_EQ(worker, (std::map<std::string, uint64_t>{{"app.Worker.run;" + kA, 3}}));
  // [20ms, 50ms) of main: 20 SA, 30 SB, 40 SR.
  const std::map<std::string, uint64_t> window = collapsed("--from 20ms --to 50ms --where thread=main");
  EXPECT_EQ(window.size(), 3u);
  // Wall samples valued in time: 10 ms each.
  const std::map<std::string, uint64_t> time = collapsed("--where thread=worker-1 --metric time");
  EXPECT_EQ(time.at("app.Worker.run;" + kA), 3u * 10 * kMs);
}

TEST_F(ExportsCli, GoToolPprofReadsThePprofFile) {
  ASSERT_EQ(std::system("command -v go >/dev/null"), 0) << "go (Debian's golang-go) is needed: scripts/setup.sh installs it";
  const CliResult exported = run("export ref.ssr --format pprof -o ref.pb.gz --metric time");
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  // -top's flat column: self time per function; the reader converts nanoseconds itself.
  const std::string go = "cd " + dir_.path() + " && HOME=" + dir_.path() + " GOCACHE=" + dir_.path() + "/gocache go tool pprof ";
  const std::string top = shellOutput(go + "-top -nodecount=100 -unit=ms ref.pb.gz");
  ASSERT_NE(top.find("Type: time"), std::string::npos) << top;
  // leaf: 3 samples of 10 ms; sleep: 4; Work.b: the two recursive samples end in b.
  auto flatOf = [&](const std::string& function) {
    std::istringstream lines(top);
    for (std::string line; std::getline(lines, line);)
      if (line.size() > function.size() && line.ends_with(" " + function)) {
        std::string flat;
        std::istringstream(line) >> flat;
        return flat;
      }
    return std::string("missing");
  };
  EXPECT_EQ(flatOf("app.Util$Inner.leaf"), "30ms") << top;
  EXPECT_EQ(flatOf("java.lang.Thread.sleep"), "40ms") << top;
  EXPECT_EQ(flatOf("app.Work.b"), "20ms") << top;
  // Both sample types are there: samples (count) and the metric.
  const std::string samples = shellOutput(go + "-top -sample_index=samples ref.pb.gz");
  EXPECT_NE(samples.find("Type: samples"), std::string::npos) << samples;
  EXPECT_NE(samples.find(" of 14 total"), std::string::npos) << samples;
}

TEST_F(ExportsCli, SpeedscopeFileFollowsTheFormat) {
  const CliResult r = run("export ref.ssr --format speedscope -o ref.speedscope.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(readFile(dir_.file("ref.speedscope.json")));
  EXPECT_EQ(doc.at("$schema"), "https://www.speedscope.app/file-format-schema.json");
  const nlohmann::json& frames = doc.at("shared").at("frames");
  ASSERT_EQ(doc.at("profiles").size(), 1u);
  const nlohmann::json& profile = doc.at("profiles")[0];
  EXPECT_EQ(profile.at("type"), "sampled");
  EXPECT_EQ(profile.at("unit"), "none");
  ASSERT_EQ(profile.at("samples").size(), profile.at("weights").size());
  uint64_t total = 0;
  bool leaf_seen = false;
  for (size_t i = 0; i < profile.at("samples").size(); ++i) {
    const nlohmann::json& stack = profile.at("samples")[i];
    for (const nlohmann::json& frame : stack) ASSERT_LT(frame.get<size_t>(), frames.size());
    total += profile.at("weights")[i].get<uint64_t>();
    if (frames[stack.back().get<size_t>()].at("name") == "app.Util$Inner.leaf") {
      leaf_seen = true;
      EXPECT_EQ(frames[stack.front().get<size_t>()].at("name"), kMain) << "samples run outermost first";
      EXPECT_EQ(profile.at("weights")[i], 3);
    }
  }
  EXPECT_TRUE(leaf_seen);
  EXPECT_EQ(total, profile.at("endValue").get<uint64_t>());
}

TEST_F(ExportsCli, ChromeTraceHasTheCollectionsAndMarkersOnATimeAxis) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir_.file("gc.ssr")));
  writeGcRecordingStart(w);
  w.writeMarker({25 * kMs, 1, format::MarkerKind::Point, w.internString("checkpoint")});
  ASSERT_TRUE(w.finish(50 * kMs));

  auto trace = [&](const std::string& args) {
    const CliResult r = run("export gc.ssr --format chrome -o - " + args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> events;
    const nlohmann::json document = nlohmann::json::parse(r.out);
    for (const nlohmann::json& e : document.at("traceEvents"))
      if (e.at("ph") != "M") events.push_back(e);
    return events;
  };
  const std::vector<nlohmann::json> all = trace("");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].at("ph"), "X");
  EXPECT_EQ(all[0].at("name"), "gc: young (Allocation Failure)");
  EXPECT_EQ(all[0].at("ts"), 15000.0);  // microseconds
  EXPECT_EQ(all[0].at("dur"), 2000.0);
  EXPECT_EQ(all[1].at("ts"), 35000.0);
  EXPECT_EQ(all[1].at("dur"), 3000.0);
  EXPECT_EQ(all[2].at("ph"), "i");
  EXPECT_EQ(all[2].at("name"), "checkpoint");
  EXPECT_EQ(all[2].at("ts"), 25000.0);
  // The window narrows both.
  const std::vector<nlohmann::json> late = trace("--from 30ms");
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].at("ts"), 35000.0);
}

TEST_F(ExportsCli, BadRequestsAreClearErrors) {
  for (const auto& [args, needle] : std::vector<std::pair<std::string, std::string>>{
           {"export ref.ssr --format svg -o x", "--format"},
           {"export nothing.ssr --format collapsed -o x", "cannot open 'nothing.ssr'"},
           {"export ref.ssr --format collapsed -o x --event alloc", "no alloc events"},
           {"export ref.ssr --format collapsed -o /no/such/dir/x", "cannot write '/no/such/dir/x'"},
       }) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace stackscope::testing

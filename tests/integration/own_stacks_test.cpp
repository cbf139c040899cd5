// The lock trace's memo of monitor-enter stacks (agent/own_stacks.h) against GetStackTrace on
// every hit (STACKSCOPE_CHECK_OWN_STACKS=1): LockPaths enters one monitor through two call
// paths and a recursion of three depths, interpreted (-Xint) and, in the default run, first
// interpreted and then compiled. The memo must be used (hits) and never differ from the VM's
// walk, and the stacks must keep their truth: every wait under LockPaths.enter, each under
// exactly one of the paths.
#include <cstdlib>
#include <regex>

#include "harness.h"

namespace it {
namespace {

const std::string kLockPaths = kWorkloads + "LockPaths";

class OwnStacks : public RecordingTest {
 protected:
  void SetUp() override {
    RecordingTest::SetUp();
    setenv("STACKSCOPE_CHECK_OWN_STACKS", "1", 1);  // inherited by the recorded JVM
  }
  void TearDown() override {
    unsetenv("STACKSCOPE_CHECK_OWN_STACKS");
    RecordingTest::TearDown();
  }
};

// The check's counts, from the warning the agent writes at the recording's end for `trace`
// ("monitor enters", "allocation sites", "throw sites").
struct CheckCounts {
  int64_t stacks = -1, hits = -1, chains = -1, checked = -1, differed = -1;
};

CheckCounts checkCounts(const json& warnings, const std::string& trace = "monitor enters") {
  const std::regex pattern(
      trace + R"(' (\d+) stacks: (\d+) from the memo, .*; (\d+) chains held, .*; checked (\d+) memo stacks, (\d+) differed)");
  CheckCounts counts;
  for (const json& warning : warnings) {
    std::smatch match;
    const std::string text = warning.get<std::string>();
    if (!std::regex_search(text, match, pattern)) continue;
    counts = {std::stoll(match[1]), std::stoll(match[2]), std::stoll(match[3]), std::stoll(match[4]), std::stoll(match[5])};
  }
  return counts;
}

TEST_F(OwnStacks, MemoStacksAreGetStackTracesOnEveryPathInterpretedAndCompiled) {
  for (const std::vector<std::string>& jvm_options : {std::vector<std::string>{"-Xint"}, std::vector<std::string>{}}) {
    const std::string mode = jvm_options.empty() ? "compiled" : "interpreted";
    const std::string path = file(mode + ".ssr");
    std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-e", "lock", "-o", path, "--"};
    for (const std::string& arg : javaCommand("LockPaths", {"4", mode == "compiled" ? "40000" : "10000"}, jvm_options))
      argv.push_back(arg);
    const ProcessResult rec = run(argv);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;

    const json methods = report(path, {"--event", "lock", "--where", "lock=java.lang.Object", "--metric", "count", "--top", "0"});
    const int64_t waits = methods.at("total").get<int64_t>();
    EXPECT_GT(waits, 10) << mode << methods.dump(1);  // every 500th entry holds the monitor 2 ms

    const CheckCounts counts = checkCounts(methods.at("warnings"));
    EXPECT_GE(counts.stacks, waits) << mode << methods.at("warnings").dump(1);  // short waits pay nothing
    EXPECT_GT(counts.hits, 0) << mode << methods.at("warnings").dump(1);
    // Several paths were walked and kept apart: two, and the recursion's depths, at the least.
    EXPECT_GE(counts.chains, 3) << mode << methods.at("warnings").dump(1);
    EXPECT_EQ(counts.checked, counts.hits) << mode << methods.at("warnings").dump(1);
    EXPECT_EQ(counts.differed, 0) << mode << methods.at("warnings").dump(1);

    // The truth of the stacks: every wait in enter, under round, and under exactly one path.
    // Which paths the waits were on depends on the threads' pace (contended threads tend to
    // run in step): only the recursion, 3 rounds in 5, is sure to have some.
    const auto total = [&](const std::string& method, const char* field) -> int64_t {
      const json* row = find(methods, "methods", "method", kLockPaths + "." + method);
      return row ? row->at(field).get<int64_t>() : 0;
    };
    EXPECT_EQ(total("enter", "self"), waits) << mode << methods.dump(1);
    EXPECT_EQ(total("round", "total"), waits) << mode << methods.dump(1);
    EXPECT_GT(total("viaRecursion", "total"), 0) << mode << methods.dump(1);
    EXPECT_EQ(total("viaFirst", "total") + total("viaSecond", "total") + total("viaRecursion", "total"), waits)
        << mode << methods.dump(1);
  }
}

// The alloc trace's memo of allocation-site stacks, checked the same way: AllocPaths allocates
// Left and Right objects at two sites of one method, make, reached through viaFirst, viaSecond
// and a recursion of three depths, interpreted (-Xint) and compiled (C2's allocation stubs call
// the VM from their runtime stubs). The memo must be used and never differ from GetStackTrace,
// and the stacks must keep their truth: every sample of either class in make, under the paths
// 1:1:3 (each path's share of a class's samples within 6 points of 20/20/60 %: about 2 000
// samples of a class compiled and 1 000 interpreted, whose binomial spread is 1-1.5 points).
TEST_F(OwnStacks, AllocationSiteStacksFromTheMemoAreGetStackTraces) {
  for (const std::vector<std::string>& jvm_options : {std::vector<std::string>{"-Xint"}, std::vector<std::string>{}}) {
    const std::string mode = jvm_options.empty() ? "compiled" : "interpreted";
    const std::string path = file("alloc-" + mode + ".ssr");
    std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-e", "alloc", "--alloc-interval", "4k", "-o", path, "--"};
    for (const std::string& arg : javaCommand("AllocPaths", {mode == "compiled" ? "500000" : "250000"}, jvm_options))
      argv.push_back(arg);
    const ProcessResult rec = run(argv);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;

    const json all = report(path, {"--event", "alloc", "--metric", "samples", "--top", "0"});
    // record counts a trace's events apart from samples (a recording of traces alone is not "0 samples").
    const std::string said = "recorded 0 samples (0 lost) and " + std::to_string(all.at("total").get<int64_t>()) + " alloc events in";
    EXPECT_NE(rec.err.find(said), std::string::npos) << said << "\n" << rec.err;
    const CheckCounts counts = checkCounts(all.at("warnings"), "allocation sites");
    EXPECT_GE(counts.stacks, all.at("total").get<int64_t>()) << mode << all.at("warnings").dump(1);
    EXPECT_GT(counts.hits, counts.stacks / 2) << mode << all.at("warnings").dump(1);
    // The two sites, three paths and the recursion's depths were kept apart.
    EXPECT_GE(counts.chains, 10) << mode << all.at("warnings").dump(1);
    EXPECT_EQ(counts.checked, counts.hits) << mode << all.at("warnings").dump(1);  // the check ran on every hit
    EXPECT_EQ(counts.differed, 0) << mode << all.at("warnings").dump(1);

    for (const std::string& cls : {kWorkloads + "AllocPaths$Left", kWorkloads + "AllocPaths$Right"}) {
      const json view = report(path, {"--event", "alloc", "--metric", "samples", "--where", "class=" + cls, "--top", "0"});
      const auto total = [&](const std::string& method, const char* field) -> double {
        const json* row = find(view, "methods", "method", kWorkloads + "AllocPaths." + method);
        return row ? row->at(field).get<double>() : 0;
      };
      const double samples = view.at("samples").get<double>();
      ASSERT_GT(samples, 500) << mode << " " << cls << view.dump(1).substr(0, 3000);
      EXPECT_EQ(total("make", "self"), samples) << mode << " " << cls;
      EXPECT_NEAR(100 * total("viaFirst", "total") / samples, 20, 6) << mode << " " << cls;
      EXPECT_NEAR(100 * total("viaSecond", "total") / samples, 20, 6) << mode << " " << cls;
      EXPECT_NEAR(100 * total("viaRecursion", "total") / samples, 60, 6) << mode << " " << cls;
    }
  }
}

// The exception trace's memo of throw sites (exception=thrown), checked the same way on Throws:
// 1000 IllegalStateExceptions from throwState, 500 IllegalArgumentExceptions from
// throwArgument under passArgument, 3 uncaught, interpreted (-Xint) and as the JIT leaves it
// (a throwing compiled frame is deoptimized: the capability asks for it). The memo must be used
// and never differ from GetStackTrace, and every throw must stay at its site.
TEST_F(OwnStacks, ThrowSiteStacksFromTheMemoAreGetStackTraces) {
  for (const std::vector<std::string>& jvm_options : {std::vector<std::string>{"-Xint"}, std::vector<std::string>{}}) {
    const std::string mode = jvm_options.empty() ? "compiled" : "interpreted";
    const std::string path = file("thrown-" + mode + ".ssr");
    std::vector<std::string> argv{STACKSCOPE_BIN, "record", "-e", "exception", "--exceptions", "thrown", "-o", path, "--"};
    for (const std::string& arg : javaCommand("Throws", {"1000", "3"}, jvm_options)) argv.push_back(arg);
    const ProcessResult rec = run(argv);
    ASSERT_EQ(rec.exit_code, 0) << rec.err;

    const json all = report(path, {"--event", "exception", "--top", "0"});
    const CheckCounts counts = checkCounts(all.at("warnings"), "throw sites");
    EXPECT_GE(counts.stacks, 1503) << mode << all.at("warnings").dump(1);
    EXPECT_GT(counts.hits, 1000) << mode << all.at("warnings").dump(1);
    EXPECT_EQ(counts.checked, counts.hits) << mode << all.at("warnings").dump(1);  // the check ran on every hit
    EXPECT_EQ(counts.differed, 0) << mode << all.at("warnings").dump(1);

    const auto atSite = [&](const std::string& site) {
      return report(path, {"--event", "exception", "--view", "methods[" + kWorkloads + "Throws." + site + "]", "--top", "0"});
    };
    EXPECT_EQ(atSite("throwState").at("samples"), 1000) << mode;
    const json argument = atSite("throwArgument");
    EXPECT_EQ(argument.at("samples"), 500) << mode;
    const json* caller = find(argument, "methods", "method", kWorkloads + "Throws.passArgument");
    ASSERT_NE(caller, nullptr) << mode << argument.dump(1).substr(0, 3000);
    EXPECT_EQ(caller->at("total"), 500) << mode;
    EXPECT_EQ(atSite("throwUncaught").at("samples"), 3) << mode;
  }
}

}  // namespace
}  // namespace it

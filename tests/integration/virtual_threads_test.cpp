// Virtual threads (JDK 21+, VirtualBurn workload): CPU-bound virtual threads, each mounted on
// its carrier all along, must show as running with their own stacks (the carrier, which
// JVMTI calls waiting meanwhile, recorded with them), and the vthreads view must group them;
// with --no-vthreads, their carriers instead.
#include <algorithm>

#include "folded_stacks.h"
#include "harness.h"

namespace it {
namespace {

constexpr int kThreads = 2;  // one per core of a small machine: each stays mounted

class VirtualThreads : public RecordingTest {};

TEST_F(VirtualThreads, CpuBoundVirtualThreadsRunWithTheirOwnStacks) {
  ProcessResult rec = record({"-e", "wall", "-i", "1ms"}, file("v.ssr"), "VirtualBurn", {std::to_string(kThreads), "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  if (rec.out.find("no virtual threads") != std::string::npos) {
    GTEST_SKIP() << "this JDK has no virtual threads (JDK 21+ needed)";
  }

  json view = report(file("v.ssr"), {"--view", "vthreads"});
  EXPECT_EQ(view.at("virtual_threads").get<int>(), kThreads) << view.dump(1);
  EXPECT_GE(view.at("carriers").get<int>(), 1) << view.dump(1);
  const double samples = view.at("virtual_samples").get<double>();
  // 1.5 s of wall time each at 1 ms; a loaded machine may starve them, so only a floor.
  EXPECT_GE(samples, 500) << view.dump(1);
  EXPECT_GE(view.at("states").value("running", 0.0), 0.9 * samples) << view.dump(1);
  // The hottest stack is the virtual threads' own: spin on top, run by both.
  const json& hottest = view.at("stacks").at(0);
  EXPECT_EQ(hottest.at("frames").at(0), kWorkloads + "VirtualBurn.spin") << hottest.dump();
  EXPECT_EQ(hottest.at("threads").get<int>(), kThreads) << hottest.dump();
  EXPECT_GE(hottest.at("samples").get<double>(), 0.9 * samples) << hottest.dump();
  // Its own stack only: it ends where the carrier's begins (below Continuation.enter).
  for (const json& frame : hottest.at("frames")) {
    const std::string name = frame;
    EXPECT_EQ(name.find("jdk.internal.vm.Continuation"), std::string::npos) << hottest.dump();
    EXPECT_EQ(name.find("java.util.concurrent.ForkJoin"), std::string::npos) << hottest.dump();
  }
  EXPECT_NE(std::find(hottest.at("frames").begin(), hottest.at("frames").end(), json("java.lang.VirtualThread.run")),
            hottest.at("frames").end()) << hottest.dump();

  // The text view says the same.
  ProcessResult text = run({STACKSCOPE_BIN, "report", file("v.ssr"), "--view", "vthreads"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(std::to_string(kThreads) + " virtual threads on "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(kWorkloads + "VirtualBurn.spin <- "), std::string::npos) << text.out;

  // In the threads view they are rows of their own, running; no carrier row is "waiting"
  // for the time its virtual thread ran.
  json threads = report(file("v.ssr"), {"--view", "threads"});
  double virtual_running = 0;
  for (const json& t : threads.at("threads")) {
    const std::string name = t.at("name");
    if (name.rfind("<virtual #", 0) == 0) virtual_running += t.at("states").value("running", 0.0);
    if (name.rfind("ForkJoinPool", 0) == 0) {
      EXPECT_LE(t.at("states").value("waiting", 0.0), 0.1 * samples) << t.dump();
    }
  }
  EXPECT_GE(virtual_running, 0.9 * samples) << threads.dump(1);
}

// VirtualYields: four virtual threads 40 calls deep burn CPU, throw one exception and yield,
// so each is mounted again with only its top frames thawed (carrier_frames.h). Truth by
// construction: a virtual thread's frames all lie above java.lang.VirtualThread.run, so a
// stack either reaches it, with the 41 descend frames, or says where its walk stopped, with
// "[frozen callers]" as its outermost frame and above it only the frames thawed since: descend
// (the innermost one, which yields), then burn or fail. No carrier frame in either.
struct YieldStacks {
  double whole = 0, frozen = 0;
};

YieldStacks checkYieldStacks(const std::string& path, const std::string& event, const std::string& top_frame) {
  const std::string descend = kWorkloads + "VirtualYields.descend";
  YieldStacks counts;
  for (const FoldedStack& stack : foldedStacks(path, "thread='<virtual*'", event)) {
    const std::vector<std::string>& frames = stack.frames;
    const auto top = std::find(frames.begin(), frames.end(), top_frame);
    if (top == frames.end()) continue;
    for (const std::string& frame : frames) {
      EXPECT_EQ(frame.find("jdk.internal.vm.Continuation"), std::string::npos) << describe(stack);
      EXPECT_EQ(frame.find("java.util.concurrent.ForkJoin"), std::string::npos) << describe(stack);
    }
    if (frames.front() == "[frozen callers]") {
      counts.frozen += stack.samples;
      EXPECT_GE(top - frames.begin(), 2) << describe(stack);
      EXPECT_TRUE(std::all_of(frames.begin() + 1, top, [&](const std::string& f) { return f == descend; })) << describe(stack);
    } else {
      counts.whole += stack.samples;
      EXPECT_NE(std::find(frames.begin(), top, "java.lang.VirtualThread.run"), top) << describe(stack);
      EXPECT_EQ(std::count(frames.begin(), top, descend), 41) << describe(stack);
    }
  }
  return counts;
}

TEST_F(VirtualThreads, AStackThawedLazilyEndsWithItsFrozenCallers) {
  ProcessResult rec = record({"-e", "cpu,exception", "-i", "1ms"}, file("y.ssr"), "VirtualYields", {"4", "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  if (rec.out.find("no virtual threads") != std::string::npos) {
    GTEST_SKIP() << "this JDK has no virtual threads (JDK 21+ needed)";
  }
  const size_t thrown_at = rec.out.find("thrown ");
  ASSERT_NE(thrown_at, std::string::npos) << rec.out;
  const double thrown = std::stod(rec.out.substr(thrown_at + 7));

  const YieldStacks samples = checkYieldStacks(file("y.ssr"), "cpu", kWorkloads + "VirtualYields.burn");
  // 4 threads on a 2-core machine for 1.5 s at 1 ms: about 3000 samples; a loaded machine
  // gives fewer, so only a floor.
  EXPECT_GE(samples.whole + samples.frozen, 300) << "whole " << samples.whole << ", frozen " << samples.frozen;
  // HotSpot 21-25 thaws a stack this deep lazily: without frozen samples this test would not
  // have checked the walk over frozen frames at all.
  EXPECT_GT(samples.frozen, 0) << "whole " << samples.whole;

  // Every exception fail() threw, each with a stack of the same shape.
  const YieldStacks exceptions = checkYieldStacks(file("y.ssr"), "exception", kWorkloads + "VirtualYields.fail");
  EXPECT_EQ(exceptions.whole + exceptions.frozen, thrown) << "whole " << exceptions.whole << ", frozen " << exceptions.frozen;
  EXPECT_GT(exceptions.frozen, 0) << "whole " << exceptions.whole;
}

// --no-vthreads: HotSpot is not asked to tell of mounts, so a carrier is sampled as itself,
// with the stack of the virtual thread it runs (down to VirtualThread.run, as above).
TEST_F(VirtualThreads, WithoutVirtualThreadsACarrierIsSampledAsItself) {
  ProcessResult rec = record({"-e", "cpu", "-i", "1ms", "--no-vthreads"}, file("n.ssr"), "VirtualBurn",
                             {std::to_string(kThreads), "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  if (rec.out.find("no virtual threads") != std::string::npos) {
    GTEST_SKIP() << "this JDK has no virtual threads (JDK 21+ needed)";
  }
  json view = report(file("n.ssr"), {"--view", "vthreads"});
  EXPECT_EQ(view.at("virtual_threads").get<int>(), 0) << view.dump(1);

  const std::string spin = kWorkloads + "VirtualBurn.spin";
  double spinning = 0;
  for (const FoldedStack& stack : foldedStacks(file("n.ssr"), "thread='ForkJoinPool*'")) {
    const std::vector<std::string>& frames = stack.frames;
    const auto top = std::find(frames.begin(), frames.end(), spin);
    if (top == frames.end()) continue;
    spinning += stack.samples;
    EXPECT_NE(std::find(frames.begin(), top, "java.lang.VirtualThread.run"), top) << describe(stack);
    for (const std::string& frame : frames) {
      EXPECT_EQ(frame.find("jdk.internal.vm.Continuation"), std::string::npos) << describe(stack);
      EXPECT_EQ(frame.find("java.util.concurrent.ForkJoin"), std::string::npos) << describe(stack);
    }
  }
  // Both carriers spin for 1.5 s at 1 ms; a loaded machine may starve them, so only a floor.
  EXPECT_GE(spinning, 500);
}

}  // namespace
}  // namespace it

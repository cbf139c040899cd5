// Markers written by the application (PhasesMarked): begin/end pairs init, work and idle,
// point markers a and b just inside work. A snapshot of each phase must hold that phase's
// method and nothing of the others.
#include "annotation_helpers.h"

namespace it {
namespace {

const std::string kPhases = kWorkloads + "PhasesMarked$";

class MarkerPhases : public RecordingTest {};

TEST_F(MarkerPhases, SnapshotsOfEachPhaseHoldThatPhaseOnly) {
  const std::string path = file("phases.ssr");
  ProcessResult rec = recordApi({"-e", "cpu", "-i", "5ms"}, path, "PhasesMarked");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, double> t = truth(rec.out);
  ASSERT_EQ(t.size(), 3u) << rec.out;

  // Every marker is listed, in order, with its kind.
  ProcessResult listed = run({STACKSCOPE_BIN, "snapshots", path, "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  json snapshots = json::parse(listed.out);
  std::vector<std::string> markers;
  for (const json& m : snapshots.at("markers")) markers.push_back(m.value("kind", "") + " " + m.value("name", ""));
  EXPECT_EQ(markers, (std::vector<std::string>{"begin init", "end init", "begin work", "point a", "point b",
                                                "end work", "begin idle", "end idle"}))
      << snapshots.dump(1);
  // Written by the launcher's thread: main (it ends as DestroyJavaVM, not a rename).
  for (const json& m : snapshots.at("markers")) {
    const std::string thread = m.value("thread", "");
    EXPECT_EQ(thread, "main");
  }

  // The truth is the program's own threads: mixed mode also samples the JIT compilers, which
  // compile during every phase (CI once saw 3 of 103 init samples in C1 and C2).
  const std::string kJavaThreads = "not thread=jvm:*";
  // Samples due in work: its CPU time over the interval.
  const double work_due = t["work"] / 5e6;
  for (const char* snapshot : {"work", "a..b"}) {
    json work = report(path, {"--snapshot", snapshot, "--where", kJavaThreads});
    const double samples = work.at("samples").get<double>();
    EXPECT_NEAR(samples, work_due, 0.1 * work_due) << snapshot;
    EXPECT_GE(methodTotal(work, kPhases + "Work.run"), 0.98 * samples) << snapshot << ": " << work.dump(1);
    EXPECT_EQ(methodTotal(work, kPhases + "Init.run"), 0) << snapshot;
  }

  json init = report(path, {"--snapshot", "init", "--where", kJavaThreads});
  const double init_samples = init.at("samples").get<double>();
  EXPECT_NEAR(init_samples, t["init"] / 5e6, 0.1 * t["init"] / 5e6);
  EXPECT_GE(methodTotal(init, kPhases + "Init.run"), 0.98 * init_samples) << init.dump(1);
  EXPECT_EQ(methodTotal(init, kPhases + "Work.run"), 0);

  // cpu mode: a sleeping program is not sampled.
  json idle = report(path, {"--snapshot", "idle"});
  EXPECT_LE(idle.at("samples").get<double>(), 2) << idle.dump(1);
}

TEST_F(MarkerPhases, WallModeSeesTheIdlePhaseAsSleeping) {
  const std::string path = file("phases-wall.ssr");
  ProcessResult rec = recordApi({"-e", "wall", "-i", "10ms"}, path, "PhasesMarked", {"200", "300", "1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  std::map<std::string, double> t = truth(rec.out);
  json idle = report(path, {"--snapshot", "idle", "--where", "thread=main", "--view", "states"});
  const double samples = idle.at("samples").get<double>();
  // One sample of main per 10 ms of the phase's wall time.
  EXPECT_NEAR(samples, t["idle"] / 1e7, 0.1 * t["idle"] / 1e7 + 2) << idle.dump(1);
  EXPECT_GE(groupSamples(idle, "states", "sleeping"), 0.95 * samples) << idle.dump(1);
  json methods = report(path, {"--snapshot", "idle", "--where", "thread=main"});
  EXPECT_GE(methodTotal(methods, kPhases + "Idle.run"), 0.95 * samples) << methods.dump(1);
}

}  // namespace
}  // namespace it

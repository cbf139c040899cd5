#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis/snapshot_store.h"
#include "analysis/snapshots.h"

namespace stackscope::analysis {
namespace {

using format::MarkerKind;
using W = std::vector<TimeWindow>;

std::vector<MarkerEvent> phases() {
  return {{0, 1, MarkerKind::Begin, "init"}, {100, 1, MarkerKind::End, "init"},   {100, 1, MarkerKind::Point, "go"},
          {110, 1, MarkerKind::Begin, "work"}, {200, 1, MarkerKind::End, "work"}, {210, 2, MarkerKind::Begin, "work"},
          {250, 2, MarkerKind::End, "work"},   {300, 1, MarkerKind::Point, "stop"}, {400, 1, MarkerKind::Begin, "idle"}};
}

TEST(Snapshots, BeginEndPairsAreUnionsOfIntervals) {
  const Snapshot work = resolveSnapshot("work", phases(), {}, 500);
  EXPECT_EQ(work.intervals, (W{{110, 200}, {210, 250}}));
  EXPECT_TRUE(work.contains(110));
  EXPECT_FALSE(work.contains(200));
  EXPECT_FALSE(work.contains(205));
  EXPECT_EQ(work.hull().from_ns, 110);
  EXPECT_EQ(work.hull().to_ns, 250);
  // An unclosed begin runs to the end of the recording.
  EXPECT_EQ(resolveSnapshot("idle", phases(), {}, 500).intervals, (W{{400, 501}}));
}

TEST(Snapshots, SpanBetweenPointMarkers) {
  EXPECT_EQ(resolveSnapshot("go..stop", phases(), {}, 500).intervals, (W{{100, 300}}));
  EXPECT_THROW(resolveSnapshot("stop..go", phases(), {}, 500), SnapshotError);
}

TEST(Snapshots, SavedSnapshotsNestToAnyDepth) {
  const std::vector<SavedSnapshot> saved = {
      {"first", 0, 150, "user=u1", ""},
      {"firstwork", 0, TimeWindow::kOpen, "thread=main", "first"},
      {"late", 140, TimeWindow::kOpen, "", "firstwork"},
  };
  const Snapshot late = resolveSnapshot("late", phases(), saved, 500);
  EXPECT_EQ(late.intervals, (W{{140, 150}}));
  EXPECT_EQ(late.filters, (std::vector<std::string>{"user=u1", "thread=main"}));
  // A saved snapshot whose parent is a marker snapshot.
  const Snapshot in_work = resolveSnapshot("w", phases(), {{"w", 190, 230, "", "work"}}, 500);
  EXPECT_EQ(in_work.intervals, (W{{190, 200}, {210, 230}}));
}

TEST(Snapshots, UnknownNamesAndCyclesAreClearErrors) {
  try {
    resolveSnapshot("wrok", phases(), {{"mine", 0, 10, "", ""}}, 500);
    FAIL();
  } catch (const SnapshotError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown snapshot 'wrok'"), std::string::npos) << what;
    EXPECT_NE(what.find("work"), std::string::npos) << what;
    EXPECT_NE(what.find("mine"), std::string::npos) << what;
  }
  const std::vector<SavedSnapshot> cycle = {{"a", 0, 10, "", "b"}, {"b", 0, 10, "", "a"}};
  EXPECT_THROW(resolveSnapshot("a", {}, cycle, 500), SnapshotError);
  EXPECT_THROW(resolveSnapshot("x", {}, {}, 500), SnapshotError);
}

TEST(Snapshots, EmptyIntersectionIsAnEmptySnapshot) {
  const Snapshot s = resolveSnapshot("x", phases(), {{"x", 0, 50, "", "work"}}, 500);
  EXPECT_TRUE(s.intervals.empty());
  EXPECT_FALSE(s.contains(10));
}

TEST(SnapshotStore, SavesReplacesAndReloadsBesideTheRecording) {
  const std::string recording = (std::filesystem::temp_directory_path() / ("ss-store-" + std::to_string(::getpid()) + ".ssr")).string();
  std::filesystem::remove(snapshotSidecarPath(recording));
  EXPECT_TRUE(loadSavedSnapshots(recording).empty());
  saveSnapshot(recording, {"init", 0, 3000, "user=u1", ""});
  saveSnapshot(recording, {"sub", 10, TimeWindow::kOpen, "", "init"});
  saveSnapshot(recording, {"init", 5, 4000, "", ""});
  const auto saved = loadSavedSnapshots(recording);
  ASSERT_EQ(saved.size(), 2u);
  EXPECT_EQ(saved[0].name, "sub");
  EXPECT_EQ(saved[0].to_ns, TimeWindow::kOpen);
  EXPECT_EQ(saved[0].parent, "init");
  EXPECT_EQ(saved[1].from_ns, 5);
  EXPECT_EQ(saved[1].to_ns, 4000);
  EXPECT_TRUE(saved[1].where.empty());
  std::ofstream(snapshotSidecarPath(recording)) << "{ not json";
  EXPECT_THROW(loadSavedSnapshots(recording), SnapshotError);
  std::filesystem::remove(snapshotSidecarPath(recording));
}

}  // namespace
}  // namespace stackscope::analysis

// Selections that keep nothing, and markers that do not pair up: a note (one line on stderr,
// an item of the JSON `notes`) says why, and the exit code stays 0. On the reference
// recording (fixture.h): 70ms long, phases "init" [0, 25ms) and "work" [35ms, 65ms), point
// markers a (35ms) and b (55ms), threads main, worker-1, sleeper.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "fixture.h"
#include "format/writer.h"

namespace stackscope::testing {
namespace {

class EmptySelection : public ::testing::Test {
 protected:
  void SetUp() override { writeReferenceRecording(dir_.file("ref.ssr")); }
  CliResult run(const std::string& args) { return runCli(args, dir_.path()); }

  // The command succeeds, prints exactly `count` note lines on stderr, one containing
  // `needle`, and its JSON form carries the same notes.
  void expectNote(const std::string& args, const std::string& needle, size_t count = 1) {
    const CliResult text = run(args + " --no-cache");
    EXPECT_EQ(text.exit_code, 0) << args << "\n" << text.err;
    EXPECT_EQ(static_cast<size_t>(std::count(text.err.begin(), text.err.end(), '\n')), count) << args << "\n" << text.err;
    EXPECT_EQ(text.err.rfind("stackscope: note: ", 0), 0u) << args << "\n" << text.err;
    EXPECT_NE(text.err.find(needle), std::string::npos) << args << "\n" << text.err;
    const CliResult json = run(args + " --json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto notes = nlohmann::json::parse(json.out).at("notes");
    ASSERT_EQ(notes.size(), count) << args;
    EXPECT_NE(notes.dump().find(needle), std::string::npos) << notes.dump();
    // A cached view says its notes again.
    EXPECT_EQ(run(args).err, text.err) << args;
  }
  TempDir dir_;
};

TEST_F(EmptySelection, AWindowAfterTheEndSaysSo) {
  expectNote("report ref.ssr --from 2.5s", "starts at 2.5s, after the recording's end (70ms)");
  expectNote("report ref.ssr --from 1.5m --view threads", "after the recording's end");
}

TEST_F(EmptySelection, ASnapshotOutsideTheWindowSaysSo) {
  expectNote("report ref.ssr --snapshot work --to 30ms", "snapshot 'work' has no part inside --from/--to");
}

TEST_F(EmptySelection, ASavedChildThatMeetsNothingOfItsParentSaysSo) {
  ASSERT_EQ(run("snapshot ref.ssr --name early --to 10ms --parent work").exit_code, 0);
  expectNote("report ref.ssr --snapshot early", "snapshot 'early' selects nothing: its interval 0s..10ms does not meet its parent 'work' (35ms..65ms)");
}

TEST_F(EmptySelection, AFilterOrANavigationStepThatKeepsNothingIsNamed) {
  expectNote("report ref.ssr --where 'user=nobody'", "the filter 'user=nobody' keeps no sample");
  expectNote("report ref.ssr --view 'threads[main]/states[sleeping]/methods'",
             "the navigation step 'states[sleeping]' matches no sample of the steps before it");
  expectNote("report ref.ssr --view 'users[nobody]/threads'", "the navigation step 'users[nobody]' matches no sample of the selection");
}

TEST_F(EmptySelection, ASelectionWithSamplesHasNoNote) {
  const CliResult r = run("report ref.ssr --view 'threads[main]/methods' --no-cache");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(nlohmann::json::parse(run("report ref.ssr --json").out).at("notes"), nlohmann::json::array());
}

TEST_F(EmptySelection, RedefiningASavedSnapshotSaysWhatItReplaced) {
  ASSERT_EQ(run("snapshot ref.ssr --name s --to 10ms").exit_code, 0);
  const CliResult again = run("snapshot ref.ssr --name s --from 20ms --to 30ms");
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_NE(again.err.find("stackscope: note: snapshot 's' existed (0s..10ms): its definition is replaced"), std::string::npos)
      << again.err;
  const CliResult shadow = run("snapshot ref.ssr --name work --to 10ms");
  EXPECT_EQ(shadow.exit_code, 0);
  EXPECT_NE(shadow.err.find("hides the begin/end markers of the same name"), std::string::npos) << shadow.err;
}

// A recording whose markers do not pair up: "open" begins at 10ms and never ends, "late"
// ends at 20ms with no begin, "half" has a pair [30ms, 40ms) and a stray end at 50ms.
void writeUnpairedMarkers(const std::string& path) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  w.writeInfo({1, "cpu", 10 * kMs, 1000 * kMs, 1, "VM", "", {}, /*sample_metrics=*/0, /*boot_id=*/""});
  w.writeThread({1, "main", 100, 1});
  const auto mark = [&](int64_t ms, format::MarkerKind kind, const char* name) {
    w.writeMarker({ms * kMs, 1, kind, w.internString(name)});
  };
  mark(10, format::MarkerKind::Begin, "open");
  mark(20, format::MarkerKind::End, "late");
  mark(30, format::MarkerKind::Begin, "half");
  mark(40, format::MarkerKind::End, "half");
  mark(50, format::MarkerKind::End, "half");
  for (int ms = 0; ms < 60; ms += 5) w.writeSample({ms * kMs, 1, 0, format::ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(60 * kMs));
}

TEST_F(EmptySelection, UnpairedMarkersAreSaid) {
  writeUnpairedMarkers(dir_.file("m.ssr"));
  expectNote("report m.ssr --snapshot open", "1 begin marker(s) 'open' never ended (the first at 10ms); each runs to the end");
  expectNote("report m.ssr --snapshot late", "1 end marker(s) 'late' had no begin (the first at 20ms) and were ignored");
  expectNote("report m.ssr --snapshot half", "1 end marker(s) 'half' had no begin (the first at 50ms)");
}

TEST_F(EmptySelection, TheStatusViewNotesMissingReportsAndFiltersThatDoNotApply) {
  const CliResult status = run("report ref.ssr --view status --no-cache");
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.err, "");
  EXPECT_NE(status.out.find("Live threads"), std::string::npos) << status.out;
  expectNote("report ref.ssr --view status --from 40ms --to 50ms", "the selected time holds no status report");
  expectNote("report ref.ssr --view status --where user=u1", "status reports are process-wide");
}


// Collections carry no stack: the views of stacks say so and point to the gc view, which
// shows them; a kind with stacks (cpu) and the gc view itself have nothing to say.
TEST_F(EmptySelection, TheStackViewsOfGcEventsSayTheyHaveNoStacks) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir_.file("gc.ssr")));
  writeGcRecordingStart(w);
  ASSERT_TRUE(w.finish(50 * kMs));

  for (const char* view : {"methods", "tree", "graph", "methods[app.Main.main]/callers"}) {
    const std::string name = std::string(view).ends_with("/callers") ? "callers" : view;
    expectNote("report gc.ssr --event gc --view '" + std::string(view) + "'",
               "gc events carry no stack: the " + name + " view has nothing to show of them; see --view gc");
  }
  const CliResult methods = run("report gc.ssr --event gc --json --no-cache");
  ASSERT_EQ(methods.exit_code, 0) << methods.err;
  EXPECT_EQ(nlohmann::json::parse(methods.out).at("methods").size(), 0u) << methods.out;
  for (const char* args : {"report gc.ssr --view gc --no-cache", "report gc.ssr --event cpu --no-cache",
                           "report gc.ssr --event cpu --view 'methods[app.Main.main]/callers' --no-cache"}) {
    const CliResult quiet = run(args);
    EXPECT_EQ(quiet.exit_code, 0) << args << "\n" << quiet.err;
    EXPECT_EQ(quiet.err, "") << args;
  }
}

// A note names the events its view counts: gc events, not samples.
TEST_F(EmptySelection, ANoteNamesTheEventsTheViewCounts) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(dir_.file("gc.ssr")));
  writeGcRecordingStart(w);  // collections at 15 and 35 ms
  ASSERT_TRUE(w.finish(50 * kMs));
  expectNote("report gc.ssr --view gc --from 40ms", "the selected time (40ms..end) holds no gc event");
  expectNote("report gc.ssr --view gc --where 'collector=old*'", "the filter 'collector=old*' keeps no gc event of the selected time");
}

}  // namespace
}  // namespace stackscope::testing

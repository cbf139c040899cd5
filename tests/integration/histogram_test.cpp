// The class histogram (histo=) on real JVMs with known truth: HeldObjects holds exactly 1000
// Held and 200 Released objects at a first System.gc(), then 4000 and none at a second and
// at its end. A heap walk counts every object, so the counts are exact, not estimates.
#include "harness.h"

namespace it {
namespace {

class ClassHistograms : public RecordingTest {
 protected:
  const std::string held_ = kWorkloads + "HeldObjects$Held";
  const std::string released_ = kWorkloads + "HeldObjects$Released";

  // The row of class `name` in a histogram view, or nullptr.
  static const json* row(const json& view, const std::string& name) { return find(view, "classes", "class", name); }
  static uint64_t instances(const json& view, const std::string& name) {
    const json* r = row(view, name);
    return r ? r->at("instances").get<uint64_t>() : 0;
  }
};

TEST_F(ClassHistograms, CountObjectsExactlyAndTheirGrowthBetweenTwoPoints) {
  const std::string path = file("histo.ssr");
  ProcessResult rec = record({"--histo", "gc"}, path, "HeldObjects", {"3000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  ASSERT_EQ(t.at("phase1.held"), 1000) << rec.out;
  ASSERT_EQ(t.at("phase2.held"), 4000) << rec.out;
  EXPECT_GE(query({"info", path}).at("records").value("class_histogram", 0u), 3u);  // two GCs and the end

  // The last histogram: the end of the program.
  const json last = report(path, {"--view", "histogram"});
  EXPECT_EQ(last.at("event"), "histogram") << last.dump(1);
  EXPECT_EQ(instances(last, held_), 4000u) << last.dump(1);
  EXPECT_EQ(row(last, released_), nullptr) << last.dump(1);  // collected by the second GC
  const json* held_row = row(last, held_);
  ASSERT_NE(held_row, nullptr);
  const uint64_t held_size = held_row->at("bytes").get<uint64_t>() / 4000;
  EXPECT_EQ(held_row->at("bytes").get<uint64_t>(), held_size * 4000);  // one size for all
  EXPECT_GE(held_size, 24u);  // a header and two longs
  EXPECT_GE(last.at("pause_ns").get<int64_t>(), 0);

  // The first histogram that holds Held objects is phase 1's: --to just after it picks it.
  int64_t phase1_ns = -1;
  for (const json& point : last.at("histograms")) {
    const int64_t time = point.at("time_ns");
    const json at = report(path, {"--view", "histogram", "--to", std::to_string(time + 1) + "ns"});
    if (instances(at, held_) == 0) continue;
    phase1_ns = time;
    EXPECT_EQ(instances(at, held_), 1000u) << at.dump(1);
    EXPECT_EQ(instances(at, released_), 200u) << at.dump(1);
    EXPECT_EQ(row(at, held_)->at("bytes").get<uint64_t>(), held_size * 1000);
    break;
  }
  ASSERT_GE(phase1_ns, 0) << last.dump(1);

  // Growth from phase 1's histogram to the last: exactly the objects made and dropped between.
  const json growth = report(path, {"--view", "histogram-growth", "--from", std::to_string(phase1_ns) + "ns"});
  EXPECT_EQ(growth.at("from_ns"), phase1_ns) << growth.dump(1);
  const json* held = row(growth, held_);
  ASSERT_NE(held, nullptr) << growth.dump(1);
  EXPECT_EQ(held->at("instances_growth"), 3000) << growth.dump(1);
  EXPECT_EQ(held->at("bytes_growth").get<int64_t>(), static_cast<int64_t>(held_size * 3000));
  const json* released = row(growth, released_);
  ASSERT_NE(released, nullptr) << growth.dump(1);
  EXPECT_EQ(released->at("instances_growth"), -200);
  EXPECT_EQ(released->at("instances"), 0);
}

// Without histo= there is no heap walk, no record, and the view says why (exit 1).
TEST_F(ClassHistograms, OffByDefault) {
  const std::string path = file("off.ssr");
  ProcessResult rec = record({}, path, "HeldObjects", {"100"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_EQ(query({"info", path}).at("records").value("class_histogram", 0u), 0u);
  const ProcessResult view = run({STACKSCOPE_BIN, "report", path, "--view", "histogram"});
  EXPECT_EQ(view.exit_code, 1) << view.out;
  EXPECT_NE(view.err.find("no class histogram"), std::string::npos) << view.err;
}

}  // namespace
}  // namespace it

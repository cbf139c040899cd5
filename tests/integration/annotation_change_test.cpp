// An annotation that changes in the middle of a run (AnnotatedChange): request r1, then r2,
// in the same method. Each sample must carry the annotation its thread had at that instant:
// the split matches the time spent in each phase, and the spans between the point markers
// around the change hold one request each.
#include "annotation_helpers.h"

namespace it {
namespace {

constexpr double kTolerancePp = 5.0;
// The marker and the annotation change are a few microseconds apart, so at most a sample
// or two may fall on the wrong side of a span boundary.
constexpr double kSpanPurity = 0.97;

class AnnotationChange : public RecordingTest {
 protected:
  void expectSplitAtTheChange(const std::string& path, const ProcessResult& rec) {
    std::map<std::string, double> t = truth(rec.out);
    ASSERT_EQ(t.size(), 2u) << rec.out;
    const double r1_truth = 100 * t["r1"] / (t["r1"] + t["r2"]);

    json requests = report(path, {"--view", "requests"});
    const double r1 = groupSamples(requests, "requests", "r1");
    const double r2 = groupSamples(requests, "requests", "r2");
    ASSERT_GT(r1 + r2, 0) << requests.dump(1);
    EXPECT_NEAR(100 * r1 / (r1 + r2), r1_truth, kTolerancePp) << requests.dump(1);

    json before = report(path, {"--snapshot", "start..switch", "--view", "requests"});
    const double before_r1 = groupSamples(before, "requests", "r1");
    EXPECT_GE(before_r1, kSpanPurity * (before_r1 + groupSamples(before, "requests", "r2"))) << before.dump(1);
    EXPECT_NEAR(before_r1, r1, 0.05 * r1 + 2) << "r1's samples are those before the change";

    json after = report(path, {"--snapshot", "switch..stop", "--view", "requests"});
    const double after_r2 = groupSamples(after, "requests", "r2");
    EXPECT_GE(after_r2, kSpanPurity * (after_r2 + groupSamples(after, "requests", "r1"))) << after.dump(1);
    EXPECT_NEAR(after_r2, r2, 0.05 * r2 + 2);
  }
};

TEST_F(AnnotationChange, CpuSamplesFollowTheChangeAtItsMoment) {
  ProcessResult rec = recordApi({"-e", "cpu", "-i", "5ms"}, file("change.ssr"), "AnnotatedChange", {"cpu", "1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectSplitAtTheChange(file("change.ssr"), rec);
}

// Wall mode samples a sleeping thread by repeating its last stack without a signal: the
// repeated samples must carry the annotation the thread has now.
TEST_F(AnnotationChange, WallRepeatsOfAnIdleThreadCarryItsCurrentAnnotation) {
  ProcessResult rec =
      recordApi({"-e", "wall", "-i", "10ms"}, file("change-wall.ssr"), "AnnotatedChange", {"sleep", "1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectSplitAtTheChange(file("change-wall.ssr"), rec);
}

}  // namespace
}  // namespace it

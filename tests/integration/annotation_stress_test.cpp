// Many threads change their annotation as fast as they can, in and out of the filter, while
// System.exit ends the JVM under them (AnnotatedStress): timers armed and disarmed from the
// annotate native race with thread ends and VM death. No crash, no hang, a finished file
// holding only the matching user.
#include "annotation_helpers.h"

namespace it {
namespace {

class AnnotationStress : public RecordingTest, public ::testing::WithParamInterface<const char*> {};

TEST_P(AnnotationStress, FlippingAnnotationsWhileTheJvmExits) {
  const std::string path = file("stress.ssr");
  const std::string mode = GetParam();
  ProcessResult jvm = runWithAgent("event=" + mode + ",interval=1ms,filter=user:u1,file=" + path, "AnnotatedStress",
                                   {"8", "1000"});
  ASSERT_FALSE(jvm.timed_out);
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_EQ(jvm.err, "");
  ASSERT_NE(jvm.out.find("flips "), std::string::npos) << jvm.out;

  json users = report(path, {"--view", "users"});
  EXPECT_TRUE(users.value("finished", false)) << "the recording was not finished";
  ASSERT_EQ(users.at("users").size(), 1u) << users.dump(1);
  EXPECT_EQ(users.at("users")[0].value("value", ""), "u1");
  EXPECT_GT(users.at("samples").get<double>(), 100);
}

INSTANTIATE_TEST_SUITE_P(Modes, AnnotationStress, ::testing::Values("cpu", "wall"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace it

// Annotation values a careless agent would store or print wrongly (AnnotatedHostile): a
// 100 000-character user, an emoji and CJK (supplementary characters, which JNI's modified
// UTF-8 would mangle), a lone surrogate, empty strings and nulls. Each must come out of the
// recording as standard UTF-8, in the right group, and print without a crash.
#include "annotation_helpers.h"

namespace it {
namespace {

const std::string kHostile = kWorkloads + "AnnotatedHostile$Hostile.";
const std::string kUnicodeUser = "Zo\xC3\xAB \xF0\x9F\x98\x80 \xE7\x94\xA8\xE6\x88\xB7";  // "Zoë 😀 用户"
const std::string kLoneSurrogateUser = "bad\xEF\xBF\xBDx";                                    // U+FFFD
constexpr size_t kValueCap = 4096;  // the agent's cap on one annotation value, in bytes

class AnnotationHostile : public RecordingTest {};

TEST_F(AnnotationHostile, HostileValuesAreStoredAndPrintedCorrectly) {
  const std::string path = file("hostile.ssr");
  ProcessResult rec = recordApi({"-e", "cpu", "-i", "5ms"}, path, "AnnotatedHostile");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  ASSERT_NE(rec.out.find("done"), std::string::npos);

  // report() parses the JSON strictly: invalid UTF-8 anywhere would fail it.
  json users = report(path, {"--view", "users"});
  const double total = users.at("samples").get<double>();
  // Five phases of equal CPU: each group holds about a fifth (JVM start-up adds to none).
  const double fifth = total / 5;
  const std::string capped(kValueCap, 'x');
  EXPECT_GT(groupSamples(users, "users", capped), 0.5 * fifth) << "the 100k user, capped at 4096 bytes";
  EXPECT_GT(groupSamples(users, "users", kUnicodeUser), 0.5 * fifth);
  EXPECT_GT(groupSamples(users, "users", kLoneSurrogateUser), 0.5 * fifth);
  EXPECT_GT(groupSamples(users, "users", ""), 0.5 * fifth) << "an empty user is a value, not unset";
  EXPECT_GT(groupSamples(users, "users", "(none)"), 0.5 * fifth) << "all-null is no annotation";
  for (const json& group : users.at("users")) {
    EXPECT_LE(group.value("value", "").size(), kValueCap);
  }

  // The unicode phase: session "" (set, empty), application non-ASCII, the rest unset.
  const double unicode = groupSamples(users, "users", kUnicodeUser);
  json sessions = report(path, {"--view", "sessions"});
  EXPECT_EQ(groupSamples(sessions, "sessions", ""), unicode) << sessions.dump(1);
  json apps = report(path, {"--view", "applications"});
  EXPECT_EQ(groupSamples(apps, "applications", "\xC3\xBC" "n\xC3\xAF" "c\xC3\xB8" "d\xC3\xA9"), unicode) << apps.dump(1);
  json requests = report(path, {"--view", "requests"});
  EXPECT_EQ(requests.at("requests").size(), 1u) << "no request was ever set: " << requests.dump(1);

  // The samples of each value are that phase's method.
  json only = report(path, {"--where", "user=\"" + kUnicodeUser + "\""});
  EXPECT_GE(methodTotal(only, kHostile + "unicode"), 0.95 * only.at("samples").get<double>()) << only.dump(1);

  // The text tables print every value, the 4 KB one included, without failing.
  for (const char* view : {"users", "sessions", "applications", "methods", "threads"}) {
    ProcessResult text = run({STACKSCOPE_BIN, "report", path, "--view", view});
    EXPECT_EQ(text.exit_code, 0) << view << ": " << text.err;
    if (std::string(view) == "users") {
      EXPECT_NE(text.out.find(kUnicodeUser), std::string::npos) << text.out.substr(0, 2000);
    }
  }
}

// The agent keeps at most 100 000 distinct annotations: beyond, new ones share one
// "(overflow)" annotation, and the agent says how many calls went there.
TEST_F(AnnotationHostile, BeyondTheTableLimitAnnotationsOverflowAndAreCounted) {
  const std::string path = file("many.ssr");
  ProcessResult rec = recordApi({"-e", "cpu", "-i", "5ms"}, path, "AnnotatedMany");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.err.find("stackscope: 101 annotations beyond the first 100000 distinct ones were recorded as "
                         "'(overflow)'"),
            std::string::npos)
      << rec.err;
  json users = report(path, {"--view", "users"});
  const double overflow = groupSamples(users, "users", "(overflow)");
  EXPECT_GT(overflow, 0.5 * 0.3e9 / 5e6) << "late's 300 ms of CPU: " << users.dump(1).substr(0, 2000);
  EXPECT_EQ(groupSamples(users, "users", "late"), 0);
  json late = report(path, {"--where", "user=\"(overflow)\""});
  EXPECT_GE(methodTotal(late, kWorkloads + "AnnotatedMany$Many.burn"), 0.9 * late.at("samples").get<double>());
}

}  // namespace
}  // namespace it

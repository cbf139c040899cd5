// Nested annotation scopes (AnnotatedScopes): the program checks itself that each closed
// scope restores the outer annotation (exit 3 otherwise); the samples of each level must
// carry that level's annotation. Without the agent the same program must run with every
// call a no-op.
#include "annotation_helpers.h"

namespace it {
namespace {

const std::string kLevels = kWorkloads + "AnnotatedScopes$Levels.";

class AnnotationScopes : public RecordingTest {};

TEST_F(AnnotationScopes, NestedScopesRestoreTheOuterAnnotation) {
  ProcessResult rec = recordApi({"-e", "cpu", "-i", "5ms"}, file("scopes.ssr"), "AnnotatedScopes");
  ASSERT_EQ(rec.exit_code, 0) << rec.out << rec.err;
  EXPECT_NE(rec.out.find("active true"), std::string::npos) << rec.out;

  // request=r1 only inside the inner scope.
  json r1 = report(file("scopes.ssr"), {"--where", "request=r1"});
  EXPECT_GT(r1.at("samples").get<double>(), 0);
  EXPECT_GE(methodTotal(r1, kLevels + "inner"), 0.95 * r1.at("samples").get<double>()) << r1.dump(1);
  for (const char* other : {"before", "innermost", "after", "plain"}) {
    EXPECT_EQ(methodTotal(r1, kLevels + other), 0) << other << ": " << r1.dump(1);
  }

  // user=u1: outer (before and after the inner scopes) and inner, not the innermost one
  // (user admin) nor after the last scope closed.
  json u1 = report(file("scopes.ssr"), {"--where", "user=u1"});
  for (const char* level : {"before", "inner", "after"}) {
    EXPECT_GT(methodTotal(u1, kLevels + level), 0) << level << ": " << u1.dump(1);
  }
  EXPECT_EQ(methodTotal(u1, kLevels + "innermost"), 0) << u1.dump(1);
  EXPECT_EQ(methodTotal(u1, kLevels + "plain"), 0) << u1.dump(1);

  json admin = report(file("scopes.ssr"), {"--where", "user=admin"});
  EXPECT_GE(methodTotal(admin, kLevels + "innermost"), 0.95 * admin.at("samples").get<double>()) << admin.dump(1);

  // Each level burned the same CPU: its users-view share follows.
  json users = report(file("scopes.ssr"), {"--view", "users"});
  const double u1_samples = groupSamples(users, "users", "u1");
  const double admin_samples = groupSamples(users, "users", "admin");
  ASSERT_GT(admin_samples, 0) << users.dump(1);
  EXPECT_NEAR(u1_samples / admin_samples, 3.0, 0.6) << users.dump(1);
  EXPECT_GT(groupSamples(users, "users", "(none)"), 0) << "the unannotated tail: " << users.dump(1);
}

TEST_F(AnnotationScopes, TheApiRunsWithoutTheAgentAndDoesNothing) {
  ProcessResult jvm = run(apiJavaCommand("AnnotatedScopes", {"50"}));
  EXPECT_EQ(jvm.exit_code, 0) << jvm.out << jvm.err;
  EXPECT_NE(jvm.out.find("active false"), std::string::npos) << jvm.out;
  EXPECT_EQ(jvm.err, "");
}

// The natives convert strings, register themselves and set a static field from a JVMTI
// callback: the JVM's own JNI checks must find nothing to say about any of it.
TEST_F(AnnotationScopes, CheckedJniFindsNothingToReport) {
  const std::string path = file("xcheck.ssr");
  ProcessResult jvm = run(apiJavaCommand("AnnotatedScopes", {"50"},
                                         {"-Xcheck:jni", "-agentpath:" + agentPath() + "=event=wall,interval=1ms,file=" + path}));
  EXPECT_EQ(jvm.exit_code, 0) << jvm.out << jvm.err;
  EXPECT_NE(jvm.out.find("active true"), std::string::npos) << jvm.out;
  EXPECT_EQ(jvm.out.find("WARNING"), std::string::npos) << jvm.out;
  EXPECT_EQ(jvm.err, "");
  json users = report(path, {"--view", "users"});
  EXPECT_GT(groupSamples(users, "users", "u1"), 0) << users.dump(1);
}

// A bad filter is a bad agent option like any other: one line, the JVM runs unprofiled,
// unless strict.
TEST_F(AnnotationScopes, BadFilterIsOneLineAndTheJvmRunsUnprofiled) {
  const std::string path = file("bad-filter.ssr");
  ProcessResult jvm = runWithAgent("filter=user:u1;who:x,file=" + path, "AnnotatedScopes", {"50"});
  EXPECT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_NE(jvm.out.find("active false"), std::string::npos) << "the API stays unbound: " << jvm.out;
  EXPECT_EQ(jvm.err,
            "stackscope: bad agent option 'filter=user:u1;who:x': unknown key 'who' (known: user, session, "
            "request, application, component)\n");
  EXPECT_FALSE(std::filesystem::exists(path));

  ProcessResult strict = runWithAgent("filter=user,strict,file=" + path, "AnnotatedScopes", {"50"});
  EXPECT_NE(strict.exit_code, 0);
  EXPECT_EQ(strict.out.find("active"), std::string::npos) << "main ran despite strict";
  EXPECT_NE(strict.err.find("filter=user"), std::string::npos) << strict.err;
}

}  // namespace
}  // namespace it

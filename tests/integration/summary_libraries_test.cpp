// The summary's libraries on a real JVM: LibrarySplit burns a known CPU budget in its own
// jar's code and twice that in java.base's Arrays.sort (JDK 25 sorts in its libsimdsort.so, below java.base). The agent names each class's module or
// code source, so the summary splits the main thread's value between java.base and the jar.
#include "harness.h"
#include "process.h"

namespace it {
namespace {

class SummaryLibraries : public RecordingTest {};

TEST_F(SummaryLibraries, JdkModuleAndApplicationJarShareTheirCpuTime) {
  ProcessResult rec = record({"-e", "cpu"}, file("libraries.ssr"), "LibrarySplit");
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::map<std::string, double> cpu = truth(rec.out);
  ASSERT_TRUE(cpu.contains("app") && cpu.contains("jdk")) << rec.out;
  const json summary = query({"summary", file("libraries.ssr"), "--where", "path~" + kWorkloads + "LibrarySplit.main"});
  const json& libraries = summary.at("libraries");
  EXPECT_FALSE(summary.contains("libraries_note")) << "every class's library is named";
  const json* base = find(summary, "libraries", "name", "java.base");
  const json* jar = find(summary, "libraries", "name", "stackscope_workloads.jar");
  ASSERT_TRUE(base && jar) << libraries.dump(1);
  EXPECT_EQ(find(summary, "libraries", "name", "JDK"), nullptr);
  EXPECT_EQ(find(summary, "libraries", "name", "application classes"), nullptr);
  // Within 5 points of the measured split: the jar's own code by self value; java.base by
  // total, as its sort may run in a native library below it (JDK 25: libsimdsort.so).
  const double total = summary.at("total").get<double>();
  const double all = cpu.at("app") + cpu.at("jdk");
  EXPECT_NEAR(100 * base->at("total").get<double>() / total, 100 * cpu.at("jdk") / all, 5) << libraries.dump(1);
  EXPECT_NEAR(100 * jar->at("self").get<double>() / total, 100 * cpu.at("app") / all, 5) << libraries.dump(1);
  EXPECT_EQ(jar->at("total").get<double>(), total);
}

}  // namespace
}  // namespace it

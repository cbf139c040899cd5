// Names a user can read and select, on a real JVM: two overloads of one name split the CPU
// time 70/30 (Overloads.java measures it), inside a lambda whose class name carries an
// address that changes from run to run.
#include <set>
#include <sstream>

#include "harness.h"

namespace it {
namespace {

constexpr double kTolerancePoints = 5.0;
const std::string kMain = kWorkloads + "Overloads";

class MethodNames : public RecordingTest {
 protected:
  void SetUp() override {
    RecordingTest::SetUp();
    ProcessResult rec = record({"-e", "cpu", "-i", "10ms"}, file("overloads.ssr"), "Overloads");
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    cpu_ = truth(rec.out);
    ASSERT_EQ(cpu_.size(), 2u) << rec.out;
    std::istringstream lines(rec.out);
    std::string word, name;
    int line = 0;
    while (lines >> word >> name >> line)
      if (word == "callsite") call_lines_[name] = line;
  }
  // The CPU-time share of work(int), in percent, as the workload measured it.
  double intShare() const { return 100 * cpu_.at("work(int)") / (cpu_.at("work(int)") + cpu_.at("work(String)")); }
  std::map<std::string, double> cpu_;
  std::map<std::string, int> call_lines_;  // overload -> the line that calls it, from StackWalker
};

TEST_F(MethodNames, OverloadsAreTwoRowsSelectedByTheirParameters) {
  const json methods = report(file("overloads.ssr"));
  const json* by_int = find(methods, "methods", "display", kMain + ".work(int)");
  const json* by_string = find(methods, "methods", "display", kMain + ".work(String)");
  ASSERT_NE(by_int, nullptr) << methods.dump(1);
  ASSERT_NE(by_string, nullptr) << methods.dump(1);
  EXPECT_EQ(by_int->at("method"), kMain + ".work");
  EXPECT_EQ(by_string->at("signature"), "(Ljava/lang/String;)J");
  const double int_total = by_int->at("total").get<double>(), string_total = by_string->at("total").get<double>();
  EXPECT_NEAR(100 * int_total / (int_total + string_total), intShare(), kTolerancePoints);

  // The same split through a resource name and through --where, in both spellings.
  const double selected_int =
      report(file("overloads.ssr"), {"--view", "methods[" + kMain + ".work(int)]/methods"}).at("samples").get<double>();
  const double selected_string =
      report(file("overloads.ssr"), {"--where", "path~" + kMain + ".work(java.lang.String)"}).at("samples").get<double>();
  EXPECT_EQ(selected_int, int_total);
  EXPECT_EQ(selected_string, string_total);
  EXPECT_NEAR(100 * selected_int / (selected_int + selected_string), intShare(), kTolerancePoints);
  EXPECT_EQ(report(file("overloads.ssr"), {"--where", "path~" + kMain + ".work(I)J"}).at("samples").get<double>(), int_total);

  // A signature that does not exist is said, not silently empty.
  const json none = report(file("overloads.ssr"), {"--view", "methods[" + kMain + ".work(long)]/methods"});
  EXPECT_EQ(none.at("samples"), 0);
  EXPECT_EQ(none.at("unmatched"), json::array({kMain + ".work(long)"}));
}

TEST_F(MethodNames, TheLambdaIsNamedWithoutItsAddressAndKeepsItInRaw) {
  const json methods = report(file("overloads.ssr"));
  for (const json& m : methods.at("methods")) {
    const std::string name = m.at("method");
    EXPECT_EQ(name.find("/0x"), std::string::npos) << name;
    EXPECT_EQ(name.find(".0x"), std::string::npos) << name;
  }
  const json* lambda = find(methods, "methods", "method", kMain + "$$Lambda.run");
  ASSERT_NE(lambda, nullptr) << methods.dump(1);
  EXPECT_NE(lambda->at("raw").get<std::string>().find("0x"), std::string::npos) << lambda->dump();
  // The lambda runs every round: it is on the stack of nearly every sample of the overloads.
  const json* by_int = find(methods, "methods", "display", kMain + ".work(int)");
  ASSERT_NE(by_int, nullptr);
  EXPECT_GE(lambda->at("total").get<double>(), by_int->at("total").get<double>());
}

TEST_F(MethodNames, TheTreeNeverCountsAnOverloadAsRecursion) {
  const json tree = report(file("overloads.ssr"), {"--view", "tree"});
  size_t work_nodes = 0;
  for (const json& node : tree.at("nodes")) {
    if (node.at("method") != kMain + ".work") continue;
    ++work_nodes;
    EXPECT_EQ(node.at("rl"), 0) << node.dump();
  }
  EXPECT_GE(work_nodes, 2u) << tree.dump(1);
}

// --lines: the lambda's node splits by the line it is on, and each line's child is the
// overload that line calls (the lines as the JVM's own StackWalker reported them).
TEST_F(MethodNames, LinesAreTheCallSitesTheJvmReports) {
  ASSERT_EQ(call_lines_.size(), 2u);
  const json tree = report(file("overloads.ssr"), {"--view", "tree", "--lines"});
  std::map<int, const json*> by_id;
  for (const json& node : tree.at("nodes")) by_id[node.at("id").get<int>()] = &node;
  std::set<std::string> checked;  // a node per line of work itself: the first call also asks for its caller
  for (const json& node : tree.at("nodes")) {
    if (node.at("method") != kMain + ".work" || node.at("parent").is_null()) continue;
    const json& caller = *by_id.at(node.at("parent").get<int>());
    ASSERT_EQ(caller.at("method"), kMain + ".lambda$main$0") << caller.dump();
    const std::string overload = node.at("params") == "(int)" ? "work(int)" : "work(String)";
    EXPECT_EQ(caller.at("line"), call_lines_.at(overload)) << overload;
    checked.insert(overload);
  }
  EXPECT_EQ(checked.size(), 2u) << tree.dump(1);
}

}  // namespace
}  // namespace it

// Names a user can read and select (names.h) on the names recording (names_fixture.h), whose
// answers are known by construction: overloads apart, lambdas normalised and merged, method
// patterns with parameter lists, lines and frame kinds.
#include <gtest/gtest.h>

#include <map>

#include "analysis/call_tree.h"
#include "analysis/callers.h"
#include "analysis/load.h"
#include "analysis/method_stats.h"
#include "analysis/names.h"
#include "analysis/resource_name.h"
#include "analysis/where_filter.h"
#include "fixture.h"
#include "names_fixture.h"

namespace stackscope::analysis {
namespace {

enum Method : uint32_t { kMain = 1, kWorkInt, kWorkString, kLambda14, kLambda21, kBody0, kBody1, kThreadRun, kFormat2, kFormat3, kHashCode };

TEST(NormaliseClassName, TakesRunSpecificCountersAndAddressesOut) {
  EXPECT_EQ(normaliseClassName("app.Main$$Lambda$14.0x0000000800c0b000"), "app.Main$$Lambda");
  EXPECT_EQ(normaliseClassName("app.Main$$Lambda$14/0x0000000800c0b000"), "app.Main$$Lambda");
  EXPECT_EQ(normaliseClassName("app.Main$$Lambda.0x00007f3a1c00a218"), "app.Main$$Lambda");
  EXPECT_EQ(normaliseClassName("app.Main$$Lambda/0x00007f3a1c00a218"), "app.Main$$Lambda");
  EXPECT_EQ(normaliseClassName("java.lang.invoke.LambdaForm$MH.0x0000000800c10400"), "java.lang.invoke.LambdaForm$MH");
  EXPECT_EQ(normaliseClassName("jdk.proxy1.$Proxy12"), "jdk.proxy1.$Proxy");
  EXPECT_EQ(normaliseClassName("jdk.internal.reflect.GeneratedMethodAccessor7"), "jdk.internal.reflect.GeneratedMethodAccessor");
  // Names that only look alike stay as they are.
  EXPECT_EQ(normaliseClassName("app.Main$Inner"), "app.Main$Inner");
  EXPECT_EQ(normaliseClassName("app.Main.0xcafe.Real"), "app.Main.0xcafe.Real");
  EXPECT_EQ(normaliseClassName("app.Hex.0xnothex"), "app.Hex.0xnothex");
  EXPECT_EQ(normaliseClassName("app.$Proxy"), "app.$Proxy");
  EXPECT_EQ(normaliseClassName("$Proxy3"), "$Proxy");
  EXPECT_EQ(normaliseClassName("app.Outer$Proxy1"), "app.Outer$Proxy1");
  EXPECT_EQ(normaliseClassName("app.Main$$Lambda$x"), "app.Main$$Lambda$x");
  EXPECT_EQ(normaliseClassName(""), "");
}

TEST(ParseDescriptor, JavaParameterTypes) {
  const JavaSignature sig = parseDescriptor("(ILjava/lang/String;[J[[Ljava/util/Map$Entry;)D");
  ASSERT_TRUE(sig.valid);
  EXPECT_EQ(sig.params, (std::vector<std::string>{"int", "String", "long[]", "Map$Entry[][]"}));
  EXPECT_EQ(sig.qualified, (std::vector<std::string>{"int", "java.lang.String", "long[]", "java.util.Map$Entry[][]"}));
  EXPECT_EQ(sig.returns, "double");
  EXPECT_TRUE(parseDescriptor("()V").valid);
  EXPECT_EQ(parseDescriptor("(LNoPackage;)[Z").params, std::vector<std::string>{"NoPackage"});
  for (const char* bad : {"", "I", "(I", "(Q)V", "(V)V", "(I)", "(I)VV", "(Ljava/lang/String)V", "(L;)V", "([)V", "()[V"})
    EXPECT_FALSE(parseDescriptor(bad).valid) << bad;
}

class NamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::writeNamesRecording(dir_.file("names.ssr"));
    rec_ = loadRecording(dir_.file("names.ssr"));
  }
  std::vector<uint32_t> matching(const std::string& pattern) const {
    const MethodNames names(rec_);
    std::vector<uint32_t> out;
    for (uint32_t m = 1; m < rec_.methods.size(); ++m)
      if (names.matches(m, MethodPattern(pattern))) out.push_back(m);
    return out;
  }
  uint64_t kept(const std::string& where) const {
    const EventPredicate keep = compileWhere(*parseWhere(where), rec_);
    uint64_t n = 0;
    for (const Event& s : rec_.events) n += keep(s) ? s.weight : 0;
    return n;
  }
  testing::TempDir dir_;
  Recording rec_;
};

TEST_F(NamesTest, OverloadsShowTheirParametersOnlyWhereTheyCollide) {
  const MethodNames names(rec_);
  EXPECT_EQ(names[kWorkInt].display, "app.Main.work(int)");
  EXPECT_EQ(names[kWorkString].display, "app.Main.work(String)");
  EXPECT_EQ(names[kFormat2].display, "app.Fmt.format(String, Object[])");
  EXPECT_EQ(names[kFormat3].display, "app.Fmt.format(Locale, String, Object[])");
  EXPECT_EQ(names[kMain].display, "app.Main.main");
  EXPECT_EQ(names[kMain].params, "(String[])");
  EXPECT_EQ(names[kWorkInt].name, "app.Main.work");
  EXPECT_NE(names[kWorkInt].identity, names[kWorkString].identity);
}

TEST_F(NamesTest, LambdasAreNormalisedAndMergedWithTheirRawNamesKept) {
  const MethodNames names(rec_);
  EXPECT_EQ(names[kLambda14].display, "app.Main$$Lambda.run");
  EXPECT_EQ(names[kLambda21].display, "app.Main$$Lambda.run");
  EXPECT_EQ(names[kLambda21].identity, kLambda14);
  EXPECT_EQ(names[kLambda21].raw, "app.Main$$Lambda.0x00007f3a1c00a218.run");
  EXPECT_EQ(names.rawNames(kLambda14),
            (std::vector<std::string>{"app.Main$$Lambda$14.0x0000000800c0b000.run", "app.Main$$Lambda.0x00007f3a1c00a218.run"}));
  EXPECT_EQ(names.rawNames(kMain), std::vector<std::string>{"app.Main.main"});
}

TEST_F(NamesTest, PatternsSelectOverloadsByJavaOrJvmSignature) {
  EXPECT_EQ(matching("app.Main.work"), (std::vector<uint32_t>{kWorkInt, kWorkString}));
  EXPECT_EQ(matching("app.Main.work(int)"), std::vector<uint32_t>{kWorkInt});
  EXPECT_EQ(matching("*.work( int )"), std::vector<uint32_t>{kWorkInt});
  EXPECT_EQ(matching("app.Main.work(I)D"), std::vector<uint32_t>{kWorkInt});
  EXPECT_EQ(matching("app.Main.work(I)"), std::vector<uint32_t>{kWorkInt});
  EXPECT_EQ(matching("app.Main.work(String)"), std::vector<uint32_t>{kWorkString});
  EXPECT_EQ(matching("app.Main.work(java.lang.String)"), std::vector<uint32_t>{kWorkString});
  EXPECT_EQ(matching("app.Main.work(Ljava/lang/String;)D"), std::vector<uint32_t>{kWorkString});
  EXPECT_EQ(matching("app.Main.work(*)"), (std::vector<uint32_t>{kWorkInt, kWorkString}));
  EXPECT_EQ(matching("app.Fmt.format(String, Object[])"), std::vector<uint32_t>{kFormat2});
  EXPECT_EQ(matching("app.Fmt.format(Locale,*)"), std::vector<uint32_t>{kFormat3});
  EXPECT_TRUE(matching("app.Main.work(long)").empty());
  EXPECT_TRUE(matching("app.Main.work(int,String)").empty());
  EXPECT_TRUE(matching("app.Main.work(J)D").empty());
  // Lambdas by their normalised name (both) or by a raw name (that one only).
  EXPECT_EQ(matching("app.Main$$Lambda.run"), (std::vector<uint32_t>{kLambda14, kLambda21}));
  EXPECT_EQ(matching("app.Main$$Lambda$14.0x0000000800c0b000.run"), std::vector<uint32_t>{kLambda14});
}

TEST_F(NamesTest, MethodStatisticKeepsOverloadsApartAndMergesLambdas) {
  const MethodStats stats = computeMethodStats(rec_, ownEvents(rec_));
  const MethodNames names(rec_);
  std::map<std::string, std::pair<uint64_t, uint64_t>> rows;
  for (const MethodStat& m : stats.methods) {
    EXPECT_TRUE(rows.emplace(names[m.method].display, std::pair{m.self, m.total}).second) << "two rows read " << names[m.method].display;
  }
  EXPECT_EQ(stats.totals.samples, 15u);
  EXPECT_EQ(rows["app.Main.work(int)"], (std::pair<uint64_t, uint64_t>{7, 7}));
  EXPECT_EQ(rows["app.Main.work(String)"], (std::pair<uint64_t, uint64_t>{3, 3}));
  EXPECT_EQ(rows["app.Main$$Lambda.run"], (std::pair<uint64_t, uint64_t>{0, 3}));
  EXPECT_EQ(rows["app.Main.lambda$main$0"], (std::pair<uint64_t, uint64_t>{2, 2}));
  EXPECT_EQ(rows["app.Main.lambda$main$1"], (std::pair<uint64_t, uint64_t>{1, 1}));
  EXPECT_EQ(rows["app.Main.main"], (std::pair<uint64_t, uint64_t>{0, 12}));
  EXPECT_EQ(rows.size(), 10u);
}

TEST_F(NamesTest, AnOverloadCallingAnotherIsNotRecursion) {
  const CallTree tree = buildCallTree(rec_, ownEvents(rec_));
  const MethodNames names(rec_);
  bool seen = false;
  for (uint32_t id : tree.preorder()) {
    const CallTreeNode& node = tree.nodes[id];
    EXPECT_EQ(node.rl, 0u) << names[node.method].display;
    if (node.method != kFormat3) continue;
    seen = true;
    EXPECT_EQ(tree.nodes[node.parent].method, uint32_t{kFormat2});
    EXPECT_EQ(node.level, 2);
    EXPECT_EQ(node.cum, 2u);
  }
  EXPECT_TRUE(seen);
}

TEST_F(NamesTest, TreeMergesLambdasThatNormaliseAlikeAndKeepsTheirBodiesApart) {
  const CallTree tree = buildCallTree(rec_, ownEvents(rec_));
  std::vector<uint32_t> lambda_nodes;
  for (uint32_t id : tree.preorder())
    if (tree.nodes[id].method == kLambda14 || tree.nodes[id].method == kLambda21) lambda_nodes.push_back(id);
  ASSERT_EQ(lambda_nodes.size(), 1u);
  const CallTreeNode& lambda = tree.nodes[lambda_nodes[0]];
  EXPECT_EQ(lambda.cum, 3u);
  ASSERT_EQ(lambda.children.size(), 2u);
  EXPECT_EQ(tree.nodes[lambda.children[0]].method, uint32_t{kBody0});
  EXPECT_EQ(tree.nodes[lambda.children[1]].method, uint32_t{kBody1});
}

TEST_F(NamesTest, LinesSplitRowsByTheLineOfEachFrame) {
  const MethodStats stats = computeMethodStats(rec_, ownEvents(rec_), true);
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>> rows;  // (method, line) -> (self, total)
  for (const MethodStat& m : stats.methods) rows[{m.method, m.line}] = {m.self, m.total};
  EXPECT_EQ((rows[{kWorkInt, 21}]), (std::pair<uint64_t, uint64_t>{3, 3}));  // bci 5
  EXPECT_EQ((rows[{kWorkInt, 22}]), (std::pair<uint64_t, uint64_t>{4, 4}));  // bci 9
  EXPECT_EQ((rows[{kWorkString, 31}]), (std::pair<uint64_t, uint64_t>{3, 3}));
  EXPECT_EQ((rows[{kMain, 11}]), (std::pair<uint64_t, uint64_t>{0, 3}));
  EXPECT_EQ((rows[{kMain, 14}]), (std::pair<uint64_t, uint64_t>{0, 2}));
  EXPECT_EQ((rows[{kHashCode, 0}]), (std::pair<uint64_t, uint64_t>{2, 2}));  // native: no line
  const CallTree tree = buildCallTree(rec_, ownEvents(rec_), true);
  size_t main_nodes = 0;
  for (uint32_t id : tree.preorder()) main_nodes += tree.nodes[id].method == kMain ? 1 : 0;
  EXPECT_EQ(main_nodes, 4u);  // main at lines 11, 12, 13 and 14
}

TEST(LineOf, TheLastEntryAtOrBeforeTheBci) {
  MethodInfo m;
  m.lines = {{0, 20}, {5, 21}, {9, 22}};
  EXPECT_EQ(lineOf(m, 0), 20u);
  EXPECT_EQ(lineOf(m, 4), 20u);
  EXPECT_EQ(lineOf(m, 5), 21u);
  EXPECT_EQ(lineOf(m, 100), 22u);
  EXPECT_EQ(lineOf(m, -3), 0u);
  m.lines = {{3, 7}};
  EXPECT_EQ(lineOf(m, 1), 0u);
  EXPECT_EQ(lineOf(MethodInfo{}, 1), 0u);
}

TEST_F(NamesTest, FrameKindsComeFromTheBci) {
  const MethodNames names(rec_);
  const FrameKeys keys(rec_, names, false);
  EXPECT_EQ(std::string(frameKindName(keys.kinds(keys.of({kHashCode, -3})))), "native");
  EXPECT_EQ(std::string(frameKindName(keys.kinds(keys.of({kWorkInt, 5})))), "java");
}

TEST_F(NamesTest, WhereSelectsOverloads) {
  EXPECT_EQ(kept("method=app.Main.work(int)"), 7u);
  EXPECT_EQ(kept("method=app.Main.work(int) or method=app.Main.work(String)"), 10u);
  EXPECT_EQ(kept("path~app.Main.work(I)D and thread=main"), 7u);
  EXPECT_EQ(kept("not (method=app.Main.work(java.lang.String))"), 12u);
  EXPECT_EQ(kept("path~app.Fmt.format(String, Object[])"), 2u);
  EXPECT_EQ(kept("class=app.Main$$Lambda"), 0u);  // never on top
  EXPECT_EQ(kept("path~app.Main$$Lambda.run"), 3u);
  EXPECT_EQ(kept("not(method=app.Main.work(int))"), 8u);  // "not(" still opens a group
}

TEST_F(NamesTest, PatternsThatNameNoMethodAreReported) {
  EXPECT_EQ(unmatchedMethodPatterns(*parseWhere("method=app.Main.work(I)D or method=app.Main.work(long)"), rec_),
            std::vector<std::string>{"app.Main.work(long)"});
  EXPECT_EQ(unmatchedMethodPatterns(*parseWhere("class=app.Nope and package=app and path~*.hashCode and user=u1"), rec_),
            std::vector<std::string>{"app.Nope"});
  EXPECT_TRUE(unmatchedMethodPatterns(*parseWhere("class=app.Main$$Lambda$14.0x0000000800c0b000"), rec_).empty());
}

TEST_F(NamesTest, AnUnmatchedNoteSuggestsNamesThePatternEnds) {
  const MethodNames names(rec_);
  EXPECT_EQ(unmatchedPatternNote(names, "Main.work(I)D"),
            "'Main.work(I)D' matches no method of the recording (did you mean app.Main.work(int)?)");
  EXPECT_EQ(unmatchedPatternNote(names, "Main.work"),
            "'Main.work' matches no method of the recording (did you mean app.Main.work(int), app.Main.work(String)?)");
  EXPECT_EQ(unmatchedPatternNote(names, "run"),
            "'run' matches no method of the recording (did you mean app.Main$$Lambda.run, java.lang.Thread.run?)");
  // "*.l*" also matches java.lang.…: three names are shown, and the rest said to exist.
  EXPECT_EQ(unmatchedPatternNote(names, "l*"),
            "'l*' matches no method of the recording (did you mean app.Main.lambda$main$0, app.Main.lambda$main$1, "
            "java.lang.Thread.run, …?)");
  EXPECT_EQ(unmatchedPatternNote(names, "app.Main.wrok"), "'app.Main.wrok' matches no method of the recording");
}

TEST(ResourceNameSignatures, ParametersKeepTheirCommasAndBrackets) {
  const ResourceName name = parseResourceName("methods[app.Main.work(int),app.Fmt.format(String, Object[])]/callers");
  ASSERT_EQ(name.elements.size(), 2u);
  EXPECT_EQ(name.elements[0].values, (std::vector<std::string>{"app.Main.work(int)", "app.Fmt.format(String, Object[])"}));
  EXPECT_EQ(name.toString(), "methods[app.Main.work(int),app.Fmt.format(String, Object[])]/callers");
  EXPECT_EQ(parseResourceName(name.toString()).toString(), name.toString());
  EXPECT_THROW(parseResourceName("methods[app.Main.work(int]"), ResourceNameError);
  EXPECT_EQ(parseResourceName("methods[\"a(b\"]").toString(), "methods[\"a(b\"]");
}

TEST_F(NamesTest, CallersFocusOnOneOverload) {
  const CallersTree tree = buildCallers(rec_, {"app.Main.work(String)"}, ownEvents(rec_));
  EXPECT_EQ(tree.focusValue(), 3u);
  ASSERT_EQ(tree.nodes[CallersTree::kRoot].children.size(), 1u);
  EXPECT_EQ(tree.nodes[tree.nodes[CallersTree::kRoot].children[0]].method, uint32_t{kWorkString});
}

}  // namespace
}  // namespace stackscope::analysis

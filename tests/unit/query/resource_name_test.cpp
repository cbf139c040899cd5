#include <gtest/gtest.h>

#include "analysis/resource_name.h"
#include "analysis/where_filter.h"

namespace stackscope::analysis {
namespace {

TEST(ResourceName, ParsesAndPrintsCanonically) {
  const ResourceName name = parseResourceName("threads[worker-1]/methods[a.B.c,a.B.d]/callers");
  ASSERT_EQ(name.elements.size(), 3u);
  EXPECT_EQ(name.elements[0].type, ResourceType::Threads);
  EXPECT_EQ(name.elements[1].values, (std::vector<std::string>{"a.B.c", "a.B.d"}));
  EXPECT_EQ(name.view().type, ResourceType::Callers);
  EXPECT_EQ(name.toString(), "threads[worker-1]/methods[a.B.c,a.B.d]/callers");
  EXPECT_EQ(name.selected(ResourceType::Methods), (std::vector<std::string>{"a.B.c", "a.B.d"}));
  EXPECT_TRUE(name.selected(ResourceType::Users).empty());

  const ResourceName thrown = parseResourceName("exceptions[java.lang.Illegal*]/methods");
  EXPECT_EQ(thrown.elements[0].type, ResourceType::Exceptions);
  EXPECT_EQ(thrown.toString(), "exceptions[java.lang.Illegal*]/methods");
  ASSERT_NE(thrown.filter(), nullptr);
  EXPECT_EQ(thrown.filter()->field, WhereField::Exception);
}

// Array classes keep their brackets without quotes; allocations and ages are steps and views.
TEST(ResourceName, ClassesTakeArrayNamesAsTheyAreWritten) {
  const ResourceName name = parseResourceName("methods[a.B.c]/allocations/classes[byte[],java.lang.Object[][]]/threads");
  ASSERT_EQ(name.elements.size(), 4u);
  EXPECT_EQ(name.elements[1].type, ResourceType::Allocations);
  EXPECT_EQ(name.elements[2].type, ResourceType::Classes);
  EXPECT_EQ(name.elements[2].values, (std::vector<std::string>{"byte[]", "java.lang.Object[][]"}));
  EXPECT_EQ(name.toString(), "methods[a.B.c]/allocations/classes[byte[],java.lang.Object[][]]/threads");
  EXPECT_EQ(parseResourceName("classes[\"a[b\"]").toString(), "classes[\"a[b\"]");
  EXPECT_EQ(parseResourceName("ages").view().type, ResourceType::Ages);
  EXPECT_THROW(parseResourceName("allocations[x]"), ResourceNameError);
  EXPECT_THROW(parseResourceName("classes[byte[]"), ResourceNameError);
}

// Frames the agent names itself ("[stub] ...", "[vm] monitor enter") are named as they print.
TEST(ResourceName, ValuesHoldBracketPairs) {
  const ResourceName name = parseResourceName("methods[[stub] sha256_implCompressMB,[vm] monitor enter]/callers");
  ASSERT_EQ(name.elements.size(), 2u);
  EXPECT_EQ(name.elements[0].values,
            (std::vector<std::string>{"[stub] sha256_implCompressMB", "[vm] monitor enter"}));
  EXPECT_EQ(name.toString(), R"(methods["[stub] sha256_implCompressMB","[vm] monitor enter"]/callers)");
  EXPECT_EQ(parseResourceName(name.toString()).toString(), name.toString());
  EXPECT_THROW(parseResourceName("methods[[stub] x"), ResourceNameError);
  EXPECT_THROW(parseResourceName("methods[[stub x]"), ResourceNameError);
}

TEST(ResourceName, QuotesValuesThatNeedIt) {
  const ResourceName name = parseResourceName(R"(threads["pool/1, \"x\""]/methods)");
  EXPECT_EQ(name.elements[0].values[0], "pool/1, \"x\"");
  EXPECT_EQ(name.toString(), R"(threads["pool/1, \"x\""]/methods)");
  EXPECT_EQ(parseResourceName(name.toString()).toString(), name.toString());
}

TEST(ResourceName, RefusesWhatIsNotAName) {
  for (const char* bad : {"", "method", "methods/", "methods[", "methods[]", "methods[a,]", "tree[x]", "callers[a]",
                          "methods[a]x", "states[sleepin]", "Methods", "threads[\"open]"}) {
    EXPECT_THROW(parseResourceName(bad), ResourceNameError) << bad;
  }
  try {
    parseResourceName("threads[main]/metods");
  } catch (const ResourceNameError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown element 'metods'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("position 15"), std::string::npos) << e.what();
  }
}

// Groups by type: values in one element are alternatives; elements all hold.
TEST(ResourceName, BecomesOneFilter) {
  Recording r;
  r.strings = {"", "a.X", "f", "g", "()V"};
  r.methods.resize(3);
  r.methods[1] = {true, 1, 2, 4, 0, {}};
  r.methods[2] = {true, 1, 3, 4, 0, {}};
  r.stacks = {{}, {{1, 0}}, {{2, 0}}, {{2, 0}, {1, 0}}};
  r.stack_defined = {false, true, true, true};
  r.threads.resize(3);
  r.threads[1] = {true, "t1", 1, 1, 0, 0};
  r.threads[2] = {true, "t2", 2, 2, 0, 0};
  r.events = {{0, 1, 1, format::ThreadState::Running, 1}, {1, 2, 2, format::ThreadState::Running, 1},
               {2, 2, 3, format::ThreadState::Sleeping, 1}};
  auto keeps = [&](const std::string& text) {
    const auto filter = parseResourceName(text).filter();
    std::vector<bool> out;
    const auto keep = filter ? compileWhere(*filter, r) : EventPredicate{};
    for (const Event& s : r.events) out.push_back(!keep || keep(s));
    return out;
  };
  using V = std::vector<bool>;
  EXPECT_EQ(keeps("methods"), (V{true, true, true}));
  EXPECT_EQ(keeps("methods[a.X.f]/threads"), (V{true, false, true}));
  EXPECT_EQ(keeps("methods[a.X.f,a.X.g]/threads"), (V{true, true, true}));
  EXPECT_EQ(keeps("methods[a.X.f]/methods[a.X.g]/threads"), (V{false, false, true}));
  EXPECT_EQ(keeps("threads[t2]/methods[a.X.g]/states[sleeping]/methods"), (V{false, false, true}));
}

}  // namespace
}  // namespace stackscope::analysis

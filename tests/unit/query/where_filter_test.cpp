#include <gtest/gtest.h>

#include "analysis/where_filter.h"

namespace stackscope::analysis {
namespace {

// main: a.App.main -> a.App.run -> b.Lib.work (top); worker: a.App.main -> b.Lib.sleep (top)
Recording makeRecording() {
  Recording r;
  r.strings = {"", "a.App", "main", "run", "b.Lib", "work", "sleep", "()V"};
  r.methods.resize(5);
  auto define = [&](uint32_t id, uint32_t cls, uint32_t name) {
    r.methods[id].defined = true;
    r.methods[id].class_name = cls;
    r.methods[id].method_name = name;
    r.methods[id].signature = 7;
  };
  define(1, 1, 2);
  define(2, 1, 3);
  define(3, 4, 5);
  define(4, 4, 6);
  r.stacks = {{}, {{3, 0}, {2, 0}, {1, 0}}, {{4, 0}, {1, 0}}};
  r.stack_defined = {false, true, true};
  r.threads.resize(3);
  r.threads[1] = {true, "main", 10, 1, 0, 0};
  r.threads[2] = {true, "worker-1", 11, 2, 0, 0};
  // Annotation 1: user u1, request r-7; annotation 2: user u2, no request.
  r.strings.insert(r.strings.end(), {"u1", "r-7", "u2"});
  r.annotations = {{}, {8, 0, 9, 0, 0}, {10, 0, 0, 0, 0}};
  r.events = {{0, 1, 1, format::ThreadState::Running, 1, 1}, {1, 2, 2, format::ThreadState::Sleeping, 1, 2}};
  return r;
}

std::vector<bool> keeps(const Recording& r, const std::string& where) {
  const auto keep = compileWhere(*parseWhere(where), r);
  std::vector<bool> out;
  for (const Event& s : r.events) out.push_back(keep(s));
  return out;
}

TEST(WhereFilter, ARenamedThreadAnswersToEveryNameItHad) {
  Recording r = makeRecording();
  r.threads[1].name = "DestroyJavaVM";  // the launcher's thread after main() returned
  r.threads[1].names = {"main", "DestroyJavaVM"};
  using V = std::vector<bool>;
  EXPECT_EQ(keeps(r, "thread=main"), (V{true, false}));
  EXPECT_EQ(keeps(r, "thread=Destroy*"), (V{true, false}));
  EXPECT_EQ(keeps(r, "thread!=main"), (V{false, true}));
}

TEST(WhereFilter, EachFieldSelectsTheRightSamples) {
  const Recording r = makeRecording();
  using V = std::vector<bool>;
  EXPECT_EQ(keeps(r, "thread=main"), (V{true, false}));
  EXPECT_EQ(keeps(r, "thread=work*"), (V{false, true}));
  EXPECT_EQ(keeps(r, "tid=2"), (V{false, true}));
  EXPECT_EQ(keeps(r, "method=b.Lib.work"), (V{true, false}));
  EXPECT_EQ(keeps(r, "class=b.Lib"), (V{true, true}));
  EXPECT_EQ(keeps(r, "package=b"), (V{true, true}));
  EXPECT_EQ(keeps(r, "package=a"), (V{false, false}));  // package of the top frame only
  EXPECT_EQ(keeps(r, "path~a.App.run"), (V{true, false}));
  EXPECT_EQ(keeps(r, "path~a.App.*"), (V{true, true}));
  EXPECT_EQ(keeps(r, "state=sleeping"), (V{false, true}));
  EXPECT_EQ(keeps(r, "event=sample"), (V{true, true}));
}

TEST(WhereFilter, AnnotationFields) {
  const Recording r = makeRecording();
  using V = std::vector<bool>;
  EXPECT_EQ(keeps(r, "user=u1"), (V{true, false}));
  EXPECT_EQ(keeps(r, "user=u*"), (V{true, true}));
  EXPECT_EQ(keeps(r, "request=r-7"), (V{true, false}));
  EXPECT_EQ(keeps(r, "request=*"), (V{true, false}));  // unset matches nothing
  EXPECT_EQ(keeps(r, "user=u2 and not request=*"), (V{false, true}));
  EXPECT_EQ(keeps(r, "session=*"), (V{false, false}));
}

TEST(WhereFilter, LogicCombinesConditions) {
  const Recording r = makeRecording();
  using V = std::vector<bool>;
  EXPECT_EQ(keeps(r, "not thread=main"), (V{false, true}));
  EXPECT_EQ(keeps(r, "thread!=main"), (V{false, true}));
  EXPECT_EQ(keeps(r, "thread=main and state=sleeping"), (V{false, false}));
  EXPECT_EQ(keeps(r, "thread=main or state=sleeping"), (V{true, true}));
  EXPECT_EQ(keeps(r, "path~a.App.main and not (method=b.Lib.work or tid=9)"), (V{false, true}));
}

}  // namespace
}  // namespace stackscope::analysis

#include <gtest/gtest.h>

#include "analysis/group_stats.h"

namespace stackscope::analysis {
namespace {

// A user literally named "(none)" is a value; a thread without a user is unset.
TEST(GroupStats, UnsetIsNotAValueThatReadsTheSame) {
  Recording r;
  r.strings = {"", "(none)", "u1"};
  r.annotations = {{}, {1, 0, 0, 0, 0}, {2, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
  r.threads.resize(2);
  r.stacks.resize(1);
  r.samples = {{0, 1, 0, format::ThreadState::Running, 3, 1},   // user "(none)"
               {1, 1, 0, format::ThreadState::Sleeping, 1, 2},  // u1
               {2, 1, 0, format::ThreadState::Running, 2, 3},   // annotated, no user
               {3, 1, 0, format::ThreadState::Running, 4, 0}};  // never annotated
  const GroupStats users = computeGroupStats(r, GroupBy::User);
  EXPECT_EQ(users.samples, 10u);
  ASSERT_EQ(users.groups.size(), 3u);
  EXPECT_EQ(users.groups[0].value, kNoValue);
  EXPECT_TRUE(users.groups[0].unset);
  EXPECT_EQ(users.groups[0].samples, 6u);
  EXPECT_EQ(users.groups[1].value, "(none)");
  EXPECT_FALSE(users.groups[1].unset);
  EXPECT_EQ(users.groups[1].samples, 3u);
  EXPECT_EQ(users.groups[2].value, "u1");

  const GroupStats states = computeGroupStats(r, GroupBy::State, [](const Sample& s) { return s.annotation != 0; });
  ASSERT_EQ(states.groups.size(), 2u);
  EXPECT_EQ(states.groups[0].value, "running");
  EXPECT_EQ(states.groups[0].samples, 5u);
  EXPECT_EQ(states.groups[1].value, "sleeping");
}

}  // namespace
}  // namespace stackscope::analysis

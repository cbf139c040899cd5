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
  r.events = {{0, 1, 0, format::ThreadState::Running, 3, 1},   // user "(none)"
               {1, 1, 0, format::ThreadState::Sleeping, 1, 2},  // u1
               {2, 1, 0, format::ThreadState::Running, 2, 3},   // annotated, no user
               {3, 1, 0, format::ThreadState::Running, 4, 0}};  // never annotated
  const GroupStats users = computeGroupStats(r, GroupBy::User, ownEvents(r));
  EXPECT_EQ(users.totals.value, 10u);
  ASSERT_EQ(users.groups.size(), 3u);
  EXPECT_EQ(users.groups[0].name, kNoValue);
  EXPECT_TRUE(users.groups[0].unset);
  EXPECT_EQ(users.groups[0].value, 6u);
  EXPECT_EQ(users.groups[1].name, "(none)");
  EXPECT_FALSE(users.groups[1].unset);
  EXPECT_EQ(users.groups[1].value, 3u);
  EXPECT_EQ(users.groups[2].name, "u1");

  const GroupStats states = computeGroupStats(r, GroupBy::State, ownEvents(r, [](const Event& s) { return s.annotation != 0; }));
  ASSERT_EQ(states.groups.size(), 2u);
  EXPECT_EQ(states.groups[0].name, "running");
  EXPECT_EQ(states.groups[0].value, 5u);
  EXPECT_EQ(states.groups[1].name, "sleeping");
}

}  // namespace
}  // namespace stackscope::analysis

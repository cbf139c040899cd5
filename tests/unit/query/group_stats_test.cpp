#include <gtest/gtest.h>

#include "analysis/group_stats.h"
#include "analysis/where_filter.h"
#include "analysis/where_parser.h"

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

// Exception events group by their thrown class, caught or not; a time sample whose stack also
// ends in a frame without a class (a native function) is no exception, for the grouping and
// for --where exception=.
TEST(GroupStats, ExceptionsGroupByThrownClass) {
  Recording r;
  r.strings = {"", "java.lang.IllegalStateException", "java.lang.IllegalStateException (uncaught)", "memcpy", "a.B", "run"};
  const auto method = [](uint32_t cls, uint32_t name) { return MethodInfo{true, cls, name, 0, 0, {}}; };
  r.methods = {{}, method(0, 1), method(0, 2), method(0, 3), method(4, 5)};
  r.stacks = {{}, {{1, -1}, {4, 7}}, {{2, -1}, {4, 9}}, {{3, -1}, {4, 7}}};
  r.stack_defined = {false, true, true, true};
  r.threads.resize(2);
  r.annotations.resize(1);
  r.events = {{0, 1, 1, format::ThreadState::Running, 2, 0, EventKind::Exception},
              {1, 1, 2, format::ThreadState::Running, 1, 0, EventKind::Exception},
              {2, 1, 3, format::ThreadState::Running, 5, 0, EventKind::Cpu}};
  EXPECT_EQ(r.thrownClass(2), "java.lang.IllegalStateException");
  EXPECT_EQ(r.thrownClass(4), "");  // no such stack

  const EventScope exceptions{EventKind::Exception, &defaultMetric(EventKind::Exception), {}};
  const GroupStats classes = computeGroupStats(r, GroupBy::Exception, exceptions);
  ASSERT_EQ(classes.groups.size(), 1u);
  EXPECT_EQ(classes.groups[0].name, "java.lang.IllegalStateException");
  EXPECT_EQ(classes.groups[0].value, 3u);

  EventPredicate thrown = compileWhere(*parseWhere("exception=java.lang.Illegal*"), r);
  EXPECT_TRUE(thrown(r.events[0]));
  EXPECT_TRUE(thrown(r.events[1]));
  EventPredicate any = compileWhere(*parseWhere("exception=*"), r);
  EXPECT_FALSE(any(r.events[2]));  // the native frame on top of a cpu sample
}

// Beyond the sum, a group keeps its largest single value and when it happened, its first and
// last time, also when several keys make one group (two annotations of one user): what the
// gc view's longest pause is, and what any metric of stored quantities can show.
TEST(GroupStats, GroupsKeepTheirLargestValueAndTimes) {
  Recording r;
  r.strings = {"", "u1", "u2"};
  r.annotations = {{}, {1, 0, 0, 0, 0}, {1, 2, 0, 0, 0}, {2, 0, 0, 0, 0}};  // 1 and 2: user u1
  r.threads.resize(2);
  r.stacks.resize(1);
  const auto lock = [](int64_t time, uint32_t annotation) {
    return Event{time, 1, 0, format::ThreadState::Blocked, 1, annotation, EventKind::Lock};
  };
  r.events = {lock(10, 1), lock(20, 2), lock(30, 1), lock(40, 3), lock(50, 2)};
  const MetricInfo& time = *findMetric(EventKind::Lock, "time");
  r.amounts[time.column] = {5, 70, 9, 100, 70};  // ns waited
  const GroupStats users = computeGroupStats(r, GroupBy::User, {EventKind::Lock, &time, {}});
  ASSERT_EQ(users.groups.size(), 2u);
  const GroupStat& u1 = users.groups[0];
  EXPECT_EQ(u1.name, "u1");
  EXPECT_EQ(u1.value, 5u + 70 + 9 + 70);
  EXPECT_EQ(u1.events, 4u);
  EXPECT_EQ(u1.max, 70u);
  EXPECT_EQ(u1.max_at_ns, 20);  // the first of two equal values
  EXPECT_EQ(u1.first_ns, 10);
  EXPECT_EQ(u1.last_ns, 50);
  EXPECT_EQ(users.groups[1].name, "u2");
  EXPECT_EQ(users.groups[1].max, 100u);
  EXPECT_EQ(users.groups[1].max_at_ns, 40);
}

// Lock events group by their lock class (total, events, longest) and by owner thread, with
// the owner's innermost method outside the JDK where a look took its stack; --where lock=
// reads the class.
TEST(GroupStats, LockEventsGroupByClassAndOwner) {
  Recording r;
  r.strings = {"", "pkg.Cache", "java.lang.Thread", "sleep", "pkg.Cache", "fill", "pkg.Queue"};
  const auto method = [](uint32_t cls, uint32_t name) { return MethodInfo{true, cls, name, 0, 0, {}}; };
  r.methods = {{}, method(2, 3), method(4, 5)};
  r.stacks = {{}, {{2, 1}}, {{1, -1}, {2, 4}}};  // a waiter's; the owner's: sleeping in Cache.fill
  r.stack_defined = {false, true, true};
  r.threads.resize(3);
  r.threads[1] = {true, "waiter"};
  r.threads[2] = {true, "holder"};
  r.annotations.resize(1);
  r.events = {{0, 1, 1, format::ThreadState::Blocked, 1, 0, EventKind::Lock},
              {1, 1, 1, format::ThreadState::Blocked, 1, 0, EventKind::Lock},
              {2, 1, 1, format::ThreadState::Blocked, 1, 0, EventKind::Lock},
              {3, 1, 1, format::ThreadState::Blocked, 1, 0, EventKind::Wait}};
  r.amounts[0] = {5'000'000, 3'000'000, 1'000'000, 9'000'000};
  r.labels[static_cast<size_t>(Label::ObjectClass)] = {1, 1, 6, 6};
  r.lock_owners = {{2, 2}, {2, 0}, {}, {}};  // the second wait had no look
  const EventScope locks{EventKind::Lock, findMetric(EventKind::Lock, "time"), {}};

  const GroupStats classes = computeGroupStats(r, GroupBy::Class, locks);
  EXPECT_EQ(classes.totals.value, 9'000'000u);
  ASSERT_EQ(classes.groups.size(), 2u);
  EXPECT_EQ(classes.groups[0].name, "pkg.Cache");
  EXPECT_EQ(classes.groups[0].value, 8'000'000u);
  EXPECT_EQ(classes.groups[0].events, 2u);
  EXPECT_EQ(classes.groups[0].max, 5'000'000u);
  EXPECT_EQ(classes.groups[1].name, "pkg.Queue");

  const GroupStats owners = computeGroupStats(r, GroupBy::Owner, locks);
  ASSERT_EQ(owners.groups.size(), 2u);
  EXPECT_EQ(owners.groups[0].name, "holder");
  EXPECT_EQ(owners.groups[0].events, 2u);
  ASSERT_EQ(owners.groups[0].held_in.size(), 1u);
  EXPECT_EQ(owners.groups[0].held_in[0].method, "pkg.Cache.fill");
  EXPECT_EQ(owners.groups[0].held_in[0].events, 1u);
  EXPECT_TRUE(owners.groups[1].unset);
  EXPECT_EQ(owners.groups[1].value, 1'000'000u);

  EventPredicate cache = compileWhere(*parseWhere("lock=pkg.C*"), r);
  EXPECT_TRUE(cache(r.events[0]));
  EXPECT_FALSE(cache(r.events[2]));
  EventPredicate queue = compileWhere(*parseWhere("lock=pkg.Queue"), r);
  EXPECT_TRUE(queue(r.events[3]));  // a wait has a lock class too
}

}  // namespace
}  // namespace stackscope::analysis

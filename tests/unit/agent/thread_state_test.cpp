#include "agent/thread_state.h"

#include <gtest/gtest.h>
#include <jvmti.h>

namespace stackscope::agent {
namespace {

using format::ThreadState;

TEST(ThreadStateMapping, Runnable) {
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE), ThreadState::Running);
}

TEST(ThreadStateMapping, NativeIsAlsoRunnable) {
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_IN_NATIVE),
            ThreadState::Native);
}

TEST(ThreadStateMapping, BlockedOnMonitor) {
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER),
            ThreadState::Blocked);
}

TEST(ThreadStateMapping, SleepingWinsOverTimedWaiting) {
  // Thread.sleep reports WAITING | WAITING_WITH_TIMEOUT | SLEEPING.
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
                                 JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT | JVMTI_THREAD_STATE_SLEEPING),
            ThreadState::Sleeping);
}

TEST(ThreadStateMapping, WaitingWithAndWithoutTimeout) {
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
                                 JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT | JVMTI_THREAD_STATE_IN_OBJECT_WAIT),
            ThreadState::TimedWaiting);
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
                                 JVMTI_THREAD_STATE_WAITING_INDEFINITELY | JVMTI_THREAD_STATE_IN_OBJECT_WAIT),
            ThreadState::Waiting);
}

TEST(ThreadStateMapping, ParkedIsNotWaiting) {
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
                                 JVMTI_THREAD_STATE_WAITING_INDEFINITELY | JVMTI_THREAD_STATE_PARKED),
            ThreadState::Parked);
  EXPECT_EQ(threadStateFromJvmti(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
                                 JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT | JVMTI_THREAD_STATE_PARKED),
            ThreadState::Parked);
}

TEST(ThreadStateMapping, RunnableAsleepInTheKernelIsIdle) {
  const int32_t runnable = JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE;
  EXPECT_EQ(threadStateFromJvmti(runnable, 'S'), ThreadState::Idle);
  EXPECT_EQ(threadStateFromJvmti(runnable, 'D'), ThreadState::Idle);
  EXPECT_EQ(threadStateFromJvmti(runnable, 'R'), ThreadState::Running);
  EXPECT_EQ(threadStateFromJvmti(runnable, 0), ThreadState::Running);  // unknown: JVMTI's word
  // The kernel's state only refines plain runnable: the others say more already.
  EXPECT_EQ(threadStateFromJvmti(runnable | JVMTI_THREAD_STATE_IN_NATIVE, 'S'), ThreadState::Native);
  EXPECT_TRUE(needsSchedulerState(runnable));
  EXPECT_FALSE(needsSchedulerState(runnable | JVMTI_THREAD_STATE_IN_NATIVE));
  EXPECT_FALSE(needsSchedulerState(JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
                                   JVMTI_THREAD_STATE_WAITING_INDEFINITELY | JVMTI_THREAD_STATE_PARKED));
}

}  // namespace
}  // namespace stackscope::agent

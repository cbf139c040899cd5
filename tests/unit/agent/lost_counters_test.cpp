#include "agent/lost_counters.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

using format::LostReason;

TEST(LostCounters, WalkErrorsMapToReasons) {
  EXPECT_EQ(lostReasonForWalkError(0), LostReason::NoJavaFrame);
  EXPECT_EQ(lostReasonForWalkError(-1), LostReason::ClassLoad);
  EXPECT_EQ(lostReasonForWalkError(-2), LostReason::GcActive);
  EXPECT_EQ(lostReasonForWalkError(-3), LostReason::NotInJava);
  EXPECT_EQ(lostReasonForWalkError(-4), LostReason::NotWalkable);
  EXPECT_EQ(lostReasonForWalkError(-5), LostReason::UnknownState);
  EXPECT_EQ(lostReasonForWalkError(-6), LostReason::NotWalkable);
  EXPECT_EQ(lostReasonForWalkError(-7), LostReason::UnknownState);
  EXPECT_EQ(lostReasonForWalkError(-8), LostReason::ThreadExiting);
  EXPECT_EQ(lostReasonForWalkError(-9), LostReason::Deopt);
  EXPECT_EQ(lostReasonForWalkError(-10), LostReason::Safepoint);
  EXPECT_EQ(lostReasonForWalkError(-11), LostReason::UnknownState);
  EXPECT_EQ(lostReasonForWalkError(-1000), LostReason::UnknownState);
}

TEST(LostCounters, CountsPerReason) {
  LostCounters lost;
  lost.add(LostReason::BufferFull);
  lost.add(LostReason::BufferFull, 4);
  lost.add(LostReason::TimerOverrun, 2);
  EXPECT_EQ(lost.get(LostReason::BufferFull), 5u);
  EXPECT_EQ(lost.get(LostReason::TimerOverrun), 2u);
  EXPECT_EQ(lost.get(LostReason::NoJavaFrame), 0u);
  lost.add(static_cast<LostReason>(format::kLostReasonMax), 3);  // the largest reason has its own counter too
  EXPECT_EQ(lost.get(static_cast<LostReason>(format::kLostReasonMax)), 3u);
}

}  // namespace
}  // namespace stackscope::agent

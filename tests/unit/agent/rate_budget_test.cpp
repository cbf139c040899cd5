// The owner looks' budget (rate_budget.h), with times given by the test: the counts follow
// from the rate and the burst alone.
#include "agent/rate_budget.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

int takeAll(RateBudget& budget) {
  int taken = 0;
  while (budget.take()) ++taken;
  return taken;
}

TEST(RateBudget, StartsFullThenEarnsItsRate) {
  RateBudget budget(5, 40);
  budget.refill(7 * kSecond);
  EXPECT_EQ(takeAll(budget), 40);
  EXPECT_FALSE(budget.take());
  budget.refill(8 * kSecond);  // one second: 5 more
  EXPECT_EQ(takeAll(budget), 5);
  budget.refill(8 * kSecond + kSecond / 10);  // a tenth of a second earns half of one: not enough
  EXPECT_FALSE(budget.take());
  budget.refill(8 * kSecond + kSecond / 5);  // the other half
  EXPECT_TRUE(budget.take());
  EXPECT_FALSE(budget.take());
}

// The writer sleeps until the budget has an operation again (lock_owners.h, planNextLook).
TEST(RateBudget, SaysWhenItNextHasAnOperation) {
  RateBudget budget(5, 2);
  budget.refill(3 * kSecond);
  EXPECT_EQ(budget.nextAt(), 3 * kSecond) << "full: now";
  EXPECT_EQ(takeAll(budget), 2);
  EXPECT_EQ(budget.nextAt(), 3 * kSecond + kSecond / 5);
  budget.refill(3 * kSecond + kSecond / 10);  // half of one earned
  EXPECT_EQ(budget.nextAt(), 3 * kSecond + kSecond / 5);
  budget.refill(3 * kSecond + kSecond / 5);
  EXPECT_EQ(budget.nextAt(), 3 * kSecond + kSecond / 5);
  EXPECT_TRUE(budget.take());
}

TEST(RateBudget, AQuietSpellSavesNoMoreThanTheBurst) {
  RateBudget budget(5, 40);
  budget.refill(kSecond);
  EXPECT_EQ(takeAll(budget), 40);
  budget.refill(1000 * kSecond);
  EXPECT_EQ(takeAll(budget), 40);
}

TEST(RateBudget, DemandAboveTheRateGetsTheRate) {
  RateBudget budget(5, 40);
  int taken = 0;
  // Ten seconds of looks every 20 ms (the writer's drain), each wanting three operations.
  for (int64_t t = 0; t <= 10 * kSecond; t += kSecond / 50) {
    budget.refill(t);
    for (int i = 0; i < 3 && budget.take(); ++i) ++taken;
  }
  EXPECT_EQ(taken, 40 + 10 * 5);
}

}  // namespace
}  // namespace stackscope::agent

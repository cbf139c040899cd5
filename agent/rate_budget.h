// A budget of costly operations over time (a token bucket): `per_second` on average, at most
// `at_once` after a quiet spell, whatever the demand. Kept in nanoseconds of earned time, so
// the counts are exact. Used by one thread (lock_owners.h: the writer's owner looks).
#pragma once

#include <algorithm>
#include <cstdint>

namespace stackscope::agent {

class RateBudget {
 public:
  RateBudget(int64_t per_second, int64_t at_once)
      : cost_ns_(kSecondNs / per_second), full_ns_(at_once * cost_ns_), left_ns_(full_ns_) {}

  // Adds the time since the previous refill; the first call starts the clock with the budget
  // full. `now_ns` monotonic.
  void refill(int64_t now_ns) {
    if (started_) left_ns_ = std::min(full_ns_, left_ns_ + std::max<int64_t>(0, now_ns - refilled_ns_));
    started_ = true;
    refilled_ns_ = now_ns;
  }

  // When (monotonic) take() next succeeds, as of the last refill: that time itself while one is left.
  int64_t nextAt() const { return refilled_ns_ + std::max<int64_t>(0, cost_ns_ - left_ns_); }

  // Spends one operation; false, spending nothing, when less than one is left.
  bool take() {
    if (left_ns_ < cost_ns_) return false;
    left_ns_ -= cost_ns_;
    return true;
  }

 private:
  static constexpr int64_t kSecondNs = 1'000'000'000;
  const int64_t cost_ns_;  // the time that earns one operation
  const int64_t full_ns_;
  int64_t left_ns_;
  bool started_ = false;
  int64_t refilled_ns_ = 0;
};

}  // namespace stackscope::agent

// What one allocation sample stands for. JVMTI heap sampling (the alloc trace) picks the
// object that crosses the next sampling point of its thread, the points spaced by random
// gaps of mean N bytes (exponentially distributed, so the points of a thread's allocated bytes
// form a Poisson process of rate 1/N). An object of s bytes is picked when at least one point
// falls inside its bytes: with probability p = 1 - exp(-s/N). Weighting each picked object by
// 1/p (Horvitz-Thompson) makes the sum an unbiased estimate of the true totals: a picked
// object stands for 1/p objects and s/p bytes. Small objects (s << N) stand for about N/s
// objects and N bytes; an object much larger than N is always picked and stands for itself.
#pragma once

#include <cstdint>

namespace stackscope::analysis {

struct AllocEstimate {
  double objects = 0;
  double bytes = 0;
};

// A hostile file's size and interval can make any estimate: beyond this it is no count, and a
// value to store is clamped to it (uint64_t holds it; a conversion of more would overflow).
inline constexpr double kLargestEstimate = 9.0e18;

// `interval` 0 means every object was recorded: each stands for itself.
AllocEstimate estimateAllocation(uint64_t size, uint64_t interval);

// `x` rounded down or up, up with probability equal to its fraction, decided by a hash of
// `seed`: the rounding keeps the estimate unbiased where rounding to nearest would not (an
// object of s = N stands for 1.58 objects; always 2 would overcount by 26 %), and the same
// event always rounds the same way, so reports are reproducible. At most kLargestEstimate.
uint64_t roundUnbiased(double x, uint64_t seed);

}  // namespace stackscope::analysis

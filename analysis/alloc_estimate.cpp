#include "analysis/alloc_estimate.h"

#include <cmath>

namespace stackscope::analysis {

AllocEstimate estimateAllocation(uint64_t size, uint64_t interval) {
  const double s = static_cast<double>(size);
  if (interval == 0 || size == 0) return {1.0, s};
  // -expm1(-x) is 1 - exp(-x) without the cancellation of small x.
  const double picked = -std::expm1(-s / static_cast<double>(interval));
  return {1.0 / picked, s / picked};
}

uint64_t roundUnbiased(double x, uint64_t seed) {
  if (!(x > 0)) return 0;  // NaN too
  if (x >= kLargestEstimate) return static_cast<uint64_t>(kLargestEstimate);
  const double whole = std::floor(x);
  // splitmix64's finalizer: consecutive seeds give independent-looking fractions.
  uint64_t z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double uniform = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
  return static_cast<uint64_t>(whole) + (uniform < x - whole ? 1 : 0);
}

}  // namespace stackscope::analysis

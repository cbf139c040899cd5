// Two stack profiles (stack_profile.h) merged into one call tree by the names of their frames,
// so that two recordings, or two parts of one, line up path by path: per node, each side's
// self and total value. What `diff --view tree` prints and the differential flame graph
// (`flame --baseline`) colours.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/stack_profile.h"

namespace stackscope::analysis {

struct DiffTreeNode {
  std::string name;  // "" for the root
  ProfileFrameKind kind = ProfileFrameKind::Other;
  uint32_t parent = 0;
  uint64_t base_self = 0, next_self = 0;    // events whose stack is exactly this path
  uint64_t base_total = 0, next_total = 0;  // ... or passes through it
  std::vector<uint32_t> children;           // by the larger of the two sides' shares, then name
};

struct DiffTree {
  static constexpr uint32_t kRoot = 0;
  std::vector<DiffTreeNode> nodes;  // parents before their children
  ViewTotals base, next;            // each side's totals: the bases of its shares
  double baseShare(const DiffTreeNode& n) const { return percent(n.base_total, base.value); }
  double nextShare(const DiffTreeNode& n) const { return percent(n.next_total, next.value); }
};

DiffTree diffTrees(const StackProfile& base, const StackProfile& next);

}  // namespace stackscope::analysis

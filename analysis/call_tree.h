// The call tree: every distinct call path from the outermost frame (a root) down to the top
// frame, merged by method identity (names.h; with `lines`, by method and line), with per node:
//   Level  depth below the root (roots are level 0);
//   RL     recursion level: how many times the node's method already appears among its
//          ancestors (0 = not recursive); an overload is another method, not recursion;
//   Calls  observed entries: how many times the node's path is on a thread's stack in a
//          event after an event of the same thread in which it was not (a thread's first
//          event in the view enters its whole path). Sampling cannot see a method that is
//          entered and left between two samples, nor a path that is left and entered again
//          in between, so Calls is a lower bound of the real number of calls;
//   Base   the metric's value of the events whose stack is exactly this path (the method
//          was on top);
//   Cum    Base plus the Base of every descendant.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct CallTreeNode {
  uint32_t method = 0;  // the identity's method id
  uint32_t line = 0;    // with lines: the line executing in this frame, 0 when unknown
  uint8_t kinds = 0;    // FrameKeys::Kind bits
  uint32_t parent = 0;
  int32_t level = -1;  // -1 only for the virtual root
  uint32_t rl = 0;
  uint64_t calls = 0;
  uint64_t base = 0;
  uint64_t cum = 0;
  std::vector<uint32_t> children;  // node indices: Cum descending, then method name
};

struct CallTree {
  // Node 0 is a virtual root above the real roots: its Cum is the value of the whole view,
  // its Base that of the events that had no frames.
  static constexpr uint32_t kRoot = 0;
  std::vector<CallTreeNode> nodes;
  ViewTotals totals;
  // The real nodes in depth-first order, hottest child first: the order of the table.
  std::vector<uint32_t> preorder() const;
};

CallTree buildCallTree(const Recording& recording, const EventScope& scope, bool lines = false);

}  // namespace stackscope::analysis

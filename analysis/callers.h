// Callers of a method (back-traces): for every sample with a focus method on its stack, the
// path from the innermost focus frame outwards to the thread's first frame, merged into a
// tree rooted at the focus method. A node's value is the metric's value of the events that
// reached the focus method through that chain of callers; each event counts once per node.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct CallersNode {
  uint32_t method = 0;  // the identity's method id (names.h)
  uint32_t line = 0;    // with lines: the line executing in this frame, 0 when unknown
  uint8_t kinds = 0;    // FrameKeys::Kind bits
  uint32_t parent = 0;  // towards the focus method; the virtual root for focus nodes
  int32_t level = -1;   // 0 for focus methods, 1 for their direct callers, …
  uint64_t value = 0;
  uint64_t self = 0;    // the value of events that ended here: the outermost frame (thread entry)
  std::vector<uint32_t> children;  // value descending, then name
};

struct CallersTree {
  static constexpr uint32_t kRoot = 0;
  std::vector<CallersNode> nodes;  // nodes[0] is a virtual root: value = that of all focus events
  ViewTotals totals;               // of the view, focus method on the stack or not

  uint64_t focusValue() const { return nodes[kRoot].value; }
  std::vector<uint32_t> preorder() const;
};

// `focus` are method patterns (names.h: `pkg.Class.method`, `pkg.*.run`, `pkg.A.work(int)`).
CallersTree buildCallers(const Recording& recording, const std::vector<std::string>& focus, const EventScope& scope,
                         bool lines = false);

}  // namespace stackscope::analysis

// The method statistic: per method, the metric's value of the events where it is the top
// frame (self) and of those where it is anywhere on the stack (total, counted once per event
// even when the method recurses, so total never exceeds the view's value). Rows are method identities
// (names.h): overloads apart, lambdas of one class and interface merged; with `lines`, a
// method at one source line.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

struct MethodStat {
  uint32_t method = 0;  // the identity's method id
  uint32_t line = 0;    // with lines: the line, 0 when unknown
  uint8_t kinds = 0;    // FrameKeys::Kind bits
  uint64_t self = 0;
  uint64_t total = 0;
};

struct MethodStats {
  ViewTotals totals;                 // of the view: value is the base of the percentages
  std::vector<MethodStat> methods;   // methods seen in the view: self desc, total desc, name
};

MethodStats computeMethodStats(const Recording& recording, const EventScope& scope, bool lines = false);

}  // namespace stackscope::analysis

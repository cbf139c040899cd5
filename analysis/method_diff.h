// Two method statistics compared: per method (by its name, so two recordings, or two parts of
// one, line up), its self and total share of each view and the change, in percentage points.
// Shares, not values: two runs of different lengths compare by where their time went.
#pragma once

#include <string>
#include <vector>

#include "analysis/method_stats.h"

namespace stackscope::analysis {

struct MethodChange {
  std::string method;  // the display name (names.h), or "name:line" with lines
  double base_self = 0, base_total = 0;  // percent of the base view's value
  double new_self = 0, new_total = 0;    // percent of the new view's value
  double selfChange() const { return new_self - base_self; }
  double totalChange() const { return new_total - base_total; }
};

struct MethodDiff {
  ViewTotals base, next;
  // Every method of either view, by the size of its self change, then its total change, then
  // name: the biggest gains and losses first.
  std::vector<MethodChange> methods;
};

MethodDiff diffMethods(const Recording& base, const MethodStats& base_stats, const Recording& next,
                       const MethodStats& next_stats);

}  // namespace stackscope::analysis

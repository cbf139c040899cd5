#include "analysis/method_diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/names.h"

namespace stackscope::analysis {

namespace {

std::string rowName(const MethodNames& names, const MethodStat& stat) {
  std::string name = names[stat.method].display;
  if (stat.line != 0) name += ":" + std::to_string(stat.line);
  return name;
}

}  // namespace

MethodDiff diffMethods(const Recording& base, const MethodStats& base_stats, const Recording& next,
                       const MethodStats& next_stats) {
  MethodDiff diff{base_stats.totals, next_stats.totals, {}};
  std::map<std::string, MethodChange> by_name;
  const MethodNames base_names(base), next_names(next);
  for (const MethodStat& stat : base_stats.methods) {
    MethodChange& change = by_name[rowName(base_names, stat)];
    change.base_self = percent(stat.self, base_stats.totals.value);
    change.base_total = percent(stat.total, base_stats.totals.value);
  }
  for (const MethodStat& stat : next_stats.methods) {
    MethodChange& change = by_name[rowName(next_names, stat)];
    change.new_self = percent(stat.self, next_stats.totals.value);
    change.new_total = percent(stat.total, next_stats.totals.value);
  }
  for (auto& [name, change] : by_name) {
    change.method = name;
    diff.methods.push_back(std::move(change));
  }
  std::stable_sort(diff.methods.begin(), diff.methods.end(), [](const MethodChange& a, const MethodChange& b) {
    if (std::abs(a.selfChange()) != std::abs(b.selfChange())) return std::abs(a.selfChange()) > std::abs(b.selfChange());
    return std::abs(a.totalChange()) > std::abs(b.totalChange());
  });
  return diff;
}

}  // namespace stackscope::analysis

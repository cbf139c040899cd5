#include "analysis/recording.h"

#include <algorithm>

namespace stackscope::analysis {

const std::string& Recording::string(uint32_t id) const {
  static const std::string kEmpty;
  return id < strings.size() ? strings[id] : kEmpty;
}

std::span<const format::Frame> Recording::stack(uint32_t id) const {
  if (id >= stacks.size()) return {};
  return stacks[id];
}

uint64_t Recording::lostTotal() const {
  uint64_t total = 0;
  for (const auto& [reason, count] : lost) total += count;
  return total;
}

int64_t Recording::viewDurationNs() const {
  const int64_t from = std::max<int64_t>(window.from_ns, 0);
  const int64_t to = std::min(window.to_ns, end_ns);
  return to > from ? to - from : 0;
}

}  // namespace stackscope::analysis

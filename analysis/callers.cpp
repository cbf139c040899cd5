#include "analysis/callers.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/names.h"
#include "analysis/stack_counts.h"

namespace stackscope::analysis {

std::vector<uint32_t> CallersTree::preorder() const {
  std::vector<uint32_t> order, pending(nodes[kRoot].children.rbegin(), nodes[kRoot].children.rend());
  while (!pending.empty()) {
    const uint32_t node = pending.back();
    pending.pop_back();
    order.push_back(node);
    pending.insert(pending.end(), nodes[node].children.rbegin(), nodes[node].children.rend());
  }
  return order;
}

CallersTree buildCallers(const Recording& recording, const std::vector<std::string>& focus, const EventScope& scope,
                         bool lines) {
  const MethodNames names(recording);
  const FrameKeys keys(recording, names, lines);
  std::vector<bool> is_focus(recording.methods.size(), false);
  for (const std::string& text : focus) {
    const MethodPattern pattern(text);
    for (uint32_t m = 0; m < is_focus.size(); ++m)
      if (names.matches(m, pattern)) is_focus[m] = true;
  }

  CallersTree tree;
  tree.nodes.push_back({});
  std::unordered_map<uint64_t, uint32_t> child_of;  // (parent node << 32 | frame key) -> node
  const StackValues counts = valuesByStack(recording, scope);
  tree.totals = counts.totals;
  for (uint32_t stack = 0; stack < counts.by_stack.size(); ++stack) {
    const uint64_t n = counts.by_stack[stack];
    if (n == 0) continue;
    const auto frames = recording.stack(stack);
    const auto first = std::find_if(frames.begin(), frames.end(), [&](const format::Frame& f) { return is_focus[f.method]; });
    if (first == frames.end()) continue;
    uint32_t node = CallersTree::kRoot;
    tree.nodes[node].value += n;
    for (auto it = first; it != frames.end(); ++it) {
      const uint32_t frame_key = keys.of(*it);
      const uint64_t key = (uint64_t{node} << 32) | frame_key;
      auto [pos, inserted] = child_of.try_emplace(key, static_cast<uint32_t>(tree.nodes.size()));
      if (inserted) {
        tree.nodes.push_back({keys.method(frame_key), keys.line(frame_key), keys.kinds(frame_key), node,
                              tree.nodes[node].level + 1, 0, 0, {}});
        tree.nodes[node].children.push_back(pos->second);
      }
      node = pos->second;
      tree.nodes[node].value += n;
    }
    tree.nodes[node].self += n;
  }
  for (CallersNode& node : tree.nodes)
    std::sort(node.children.begin(), node.children.end(), [&](uint32_t a, uint32_t b) {
      const CallersNode &x = tree.nodes[a], &y = tree.nodes[b];
      if (x.value != y.value) return x.value > y.value;
      if (names[x.method].display != names[y.method].display) return names[x.method].display < names[y.method].display;
      return x.line < y.line;
    });
  return tree;
}

}  // namespace stackscope::analysis

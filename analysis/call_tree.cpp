#include "analysis/call_tree.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "analysis/names.h"

namespace stackscope::analysis {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

class Builder {
 public:
  Builder(const Recording& recording, bool lines)
      : rec_(recording),
        names_(recording),
        keys_(recording, names_, lines),
        leaf_of_stack_(recording.stacks.size(), kNone),
        last_leaf_(recording.threads.size(), kNone) {
    tree_.nodes.emplace_back();  // the virtual root
    walk_.push_back({0, -1, 0});
  }

  void add(const Event& event, uint64_t value) {
    const uint32_t leaf = leafOf(event.stack);
    tree_.nodes[leaf].base += value;
    enter(last_leaf_[event.thread], leaf);
    last_leaf_[event.thread] = leaf;
  }

  CallTree finish(const ViewTotals& totals) {
    tree_.totals = totals;
    auto& nodes = tree_.nodes;
    for (size_t i = 0; i < nodes.size(); ++i) {
      nodes[i].cum = nodes[i].base;
      nodes[i].calls = walk_[i].calls;
    }
    // A child is always created after its parent, so walking backwards sums each subtree
    // completely before it is added to its parent.
    for (size_t i = nodes.size() - 1; i > 0; --i) nodes[nodes[i].parent].cum += nodes[i].cum;
    for (CallTreeNode& node : nodes) {
      std::sort(node.children.begin(), node.children.end(), [&](uint32_t a, uint32_t b) {
        if (nodes[a].cum != nodes[b].cum) return nodes[a].cum > nodes[b].cum;
        const std::string &name_a = names_[nodes[a].method].display, &name_b = names_[nodes[b].method].display;
        if (name_a != name_b) return name_a < name_b;
        if (nodes[a].line != nodes[b].line) return nodes[a].line < nodes[b].line;
        return a < b;
      });
    }
    return std::move(tree_);
  }

 private:
  // The node of a stack's full path, built the first time the stack is seen.
  uint32_t leafOf(uint32_t stack) {
    uint32_t& leaf = leaf_of_stack_[stack];
    if (leaf != kNone) return leaf;
    uint32_t node = CallTree::kRoot;
    const auto frames = rec_.stack(stack);
    for (auto it = frames.rbegin(); it != frames.rend(); ++it) node = child(node, keys_.of(*it));
    return leaf = node;
  }

  uint32_t child(uint32_t parent, uint32_t frame_key) {
    const uint64_t key = (uint64_t{parent} << 32) | frame_key;
    auto [it, inserted] = children_.try_emplace(key, static_cast<uint32_t>(tree_.nodes.size()));
    if (!inserted) return it->second;
    const uint32_t method = keys_.method(frame_key);
    CallTreeNode node;
    node.method = method;
    node.line = keys_.line(frame_key);
    node.kinds = keys_.kinds(frame_key);
    node.parent = parent;
    node.level = tree_.nodes[parent].level + 1;
    for (uint32_t up = parent; up != CallTree::kRoot; up = tree_.nodes[up].parent)
      if (tree_.nodes[up].method == method) ++node.rl;
    walk_.push_back({node.parent, node.level, 0});
    tree_.nodes.push_back(std::move(node));
    tree_.nodes[parent].children.push_back(it->second);
    return it->second;
  }

  // Counts an entry for every node on the path to `leaf` that was not on the path to
  // `previous`: the nodes below the two paths' deepest common node.
  // The walk runs per sample, so it works in the compact walk_ table, not in the nodes.
  void enter(uint32_t previous, uint32_t leaf) {
    uint32_t a = leaf, b = previous == kNone ? CallTree::kRoot : previous;
    while (walk_[a].level > walk_[b].level) {
      ++walk_[a].calls;
      a = walk_[a].parent;
    }
    while (walk_[b].level > walk_[a].level) b = walk_[b].parent;
    while (a != b) {
      ++walk_[a].calls;
      a = walk_[a].parent;
      b = walk_[b].parent;
    }
  }

  const Recording& rec_;
  const MethodNames names_;
  const FrameKeys keys_;
  CallTree tree_;
  std::unordered_map<uint64_t, uint32_t> children_;  // (parent, frame key) -> node
  std::vector<uint32_t> leaf_of_stack_;
  std::vector<uint32_t> last_leaf_;  // per thread: the path of its previous sample
  struct Walk {
    uint32_t parent;
    int32_t level;
    uint64_t calls;
  };
  std::vector<Walk> walk_;  // per node: parent and level copied, calls counted
};

}  // namespace

std::vector<uint32_t> CallTree::preorder() const {
  std::vector<uint32_t> order, pending;
  order.reserve(nodes.size() - 1);
  const auto push_children = [&](uint32_t node) {
    const auto& children = nodes[node].children;
    pending.insert(pending.end(), children.rbegin(), children.rend());
  };
  push_children(kRoot);
  while (!pending.empty()) {
    const uint32_t node = pending.back();
    pending.pop_back();
    order.push_back(node);
    push_children(node);
  }
  return order;
}

CallTree buildCallTree(const Recording& recording, const EventScope& scope, bool lines) {
  Builder builder(recording, lines);
  const ViewTotals totals = forEachEvent(recording, scope, [&](const Event& event, uint64_t value) { builder.add(event, value); });
  return builder.finish(totals);
}

}  // namespace stackscope::analysis

#include "analysis/tree_diff.h"

#include <algorithm>
#include <map>

namespace stackscope::analysis {

namespace {

class Merger {
 public:
  Merger() { tree_.nodes.emplace_back(); }

  // Adds a side's stacks (`base` or the new one) along their frames' names.
  void add(const StackProfile& profile, bool base) {
    for (const ProfileStack& stack : profile.stacks) {
      uint32_t node = DiffTree::kRoot;
      for (uint32_t frame : stack.frames) node = child(node, profile.frames[frame]);
      (base ? tree_.nodes[node].base_self : tree_.nodes[node].next_self) += stack.value;
    }
    (base ? tree_.base : tree_.next) = profile.totals;
  }

  DiffTree finish() {
    auto& nodes = tree_.nodes;
    for (DiffTreeNode& n : nodes) {
      n.base_total = n.base_self;
      n.next_total = n.next_self;
    }
    for (size_t i = nodes.size(); i-- > 1;) {
      nodes[nodes[i].parent].base_total += nodes[i].base_total;
      nodes[nodes[i].parent].next_total += nodes[i].next_total;
    }
    const auto weight = [&](uint32_t n) { return std::max(tree_.baseShare(nodes[n]), tree_.nextShare(nodes[n])); };
    for (DiffTreeNode& n : nodes)
      std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
        return weight(a) != weight(b) ? weight(a) > weight(b) : nodes[a].name < nodes[b].name;
      });
    return std::move(tree_);
  }

 private:
  uint32_t child(uint32_t parent, const ProfileFrame& frame) {
    auto [it, added] = index_.try_emplace({parent, frame.name}, static_cast<uint32_t>(tree_.nodes.size()));
    if (added) {
      DiffTreeNode node;
      node.name = frame.name;
      node.kind = frame.kind;
      node.parent = parent;
      tree_.nodes.push_back(std::move(node));
      tree_.nodes[parent].children.push_back(it->second);
    }
    return it->second;
  }

  DiffTree tree_;
  std::map<std::pair<uint32_t, std::string>, uint32_t> index_;
};

}  // namespace

DiffTree diffTrees(const StackProfile& base, const StackProfile& next) {
  Merger merger;
  merger.add(base, true);
  merger.add(next, false);
  return merger.finish();
}

}  // namespace stackscope::analysis

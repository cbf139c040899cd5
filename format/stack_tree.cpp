#include "format/stack_tree.h"

namespace stackscope::format {

bool StackTree::add(uint32_t id, uint32_t base, uint32_t shared, const std::vector<Frame>& added, std::vector<Frame>& frames) {
  if (id == 0) return false;
  uint32_t node = 0;
  // An id read before (the same map chunk read twice by one reader) keeps its first frames.
  if (const auto known = stacks_.find(id); known != stacks_.end()) return walkToRoot(known->second, frames), true;
  if (base != 0) {
    const auto it = stacks_.find(base);
    if (it == stacks_.end()) return false;
    node = it->second;
  }
  if (shared > nodes_[node].depth || uint64_t{shared} + added.size() > kMaxDepth) return false;
  while (nodes_[node].depth > shared) node = nodes_[node].parent;  // base's outermost `shared` frames
  // Branches are not merged with an equal path written before: the writer never writes one,
  // and a duplicate only costs the nodes of its own frames.
  for (const Frame& frame : added) {
    nodes_.push_back({node, nodes_[node].depth + 1, frame});
    node = static_cast<uint32_t>(nodes_.size() - 1);
  }
  stacks_.emplace(id, node);
  walkToRoot(node, frames);
  return true;
}

void StackTree::walkToRoot(uint32_t node, std::vector<Frame>& frames) const {
  frames.clear();
  for (; node != 0; node = nodes_[node].parent) frames.push_back(nodes_[node].frame);
}

}  // namespace stackscope::format

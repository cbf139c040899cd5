// The reader's side of StackBranch records (docs/format.md): every stack read so far as a path
// in a tree whose root is the outermost frame, so a branch finds the outer frames it shares
// with a known stack and the reader hands whole frame arrays to its visitor, as record 4 did.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "format/records.h"

namespace stackscope::format {

class StackTree {
 public:
  // Deeper stacks are refused: the agent writes at most 513 frames, and a limit keeps a
  // hostile file's few bytes from standing for an unbounded frame array.
  static constexpr uint32_t kMaxDepth = 4096;

  // Stack `id` = the outermost `shared` frames of stack `base` (0: none), then `added`
  // (outermost first). Fills `frames` innermost first. False, and nothing added, when the id
  // is 0, the base unknown or shorter than `shared`, or the stack too deep. An id already
  // known gives its first frames.
  bool add(uint32_t id, uint32_t base, uint32_t shared, const std::vector<Frame>& added, std::vector<Frame>& frames);

 private:
  void walkToRoot(uint32_t node, std::vector<Frame>& frames) const;  // innermost first

  struct Node {
    uint32_t parent = 0;  // index in nodes_; the root (0) is its own parent
    uint32_t depth = 0;   // frames from the root to it, itself included
    Frame frame;
  };
  std::vector<Node> nodes_{Node{}};
  std::unordered_map<uint32_t, uint32_t> stacks_;  // stack id -> node of its innermost frame
};

}  // namespace stackscope::format

// Stacks of every shape the prefix-tree encoding must get right, written the same way by
// every writer: flat_stacks_v1.ssr in data/ is this recording written by the writer of
// commit a7109a8, which stored each stack whole (record 4), so a test can compare it with
// what today's writer makes of the same calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "format/writer.h"

namespace stackscope::format::testing {

inline constexpr uint32_t kTruncatedMethod = 99;  // the agent's "[truncated]" pseudo-method
inline constexpr size_t kAgentMaxFrames = 512;    // what the agent keeps of a deeper stack

// Innermost first, as the agent hands them to internStack.
inline std::vector<std::vector<Frame>> stackShapes() {
  auto chain = [](std::vector<Frame> outer_first) { return std::vector<Frame>(outer_first.rbegin(), outer_first.rend()); };
  std::vector<std::vector<Frame>> shapes;
  shapes.push_back(chain({{1, 0}, {2, 5}, {3, 7}}));           // main -> run -> work
  shapes.push_back(chain({{1, 0}, {2, 5}, {3, 7}, {4, 1}}));   // extends it by one frame
  shapes.push_back(chain({{1, 0}, {2, 5}, {5, 2}}));           // shares two outer frames
  shapes.push_back(chain({{1, 0}, {2, 5}}));                   // a prefix of the ones before
  shapes.push_back(chain({{1, 0}, {2, 6}, {3, 7}}));           // same methods, another bci
  shapes.push_back(chain({{6, -1}, {7, -1}}));                 // nothing shared, no bcis
  shapes.push_back({});                                        // the empty stack
  std::vector<Frame> recursion;                                // 600 deep: truncated
  for (uint32_t depth = 0; depth < 600; ++depth) recursion.push_back({8 + depth % 3, static_cast<int32_t>(depth % 17)});
  std::vector<Frame> truncated(recursion.end() - kAgentMaxFrames, recursion.end());
  std::reverse(truncated.begin(), truncated.end());            // innermost first
  truncated.push_back({kTruncatedMethod, -1});
  shapes.push_back(truncated);
  std::vector<Frame> deeper = truncated;                       // one level deeper: the window moved
  deeper.insert(deeper.begin(), {9, 3});
  deeper.erase(deeper.end() - 2);
  shapes.push_back(deeper);
  std::vector<Frame> leaf_changed = truncated;                 // the same deep stack, another leaf
  leaf_changed.front() = {11, 4};
  shapes.push_back(leaf_changed);
  shapes.push_back(chain({{1, 0}, {2, 5}, {3, 7}, {4, 1}}));   // seen before: no new stack
  return shapes;
}

// The recording both writers wrote: methods, one thread, one sample per shape.
inline void writeStackShapes(RecordingWriter& w) {
  w.writeInfo({0, "cpu", 1000000, 1000000000, 42, "test", "", {}, /*sample_metrics=*/0, /*boot_id=*/""});
  for (uint32_t id = 1; id <= kTruncatedMethod; ++id) {
    const bool truncated = id == kTruncatedMethod;
    w.writeMethod({id, w.internString(truncated ? "" : "demo.C" + std::to_string(id % 4)),
                   w.internString(truncated ? "[truncated]" : "m" + std::to_string(id)), w.internString("()V"), 0, {}});
  }
  w.writeThread({1, "main", 100, 1});
  int64_t t = 1000;
  for (const std::vector<Frame>& frames : stackShapes())
    w.writeSample({t += 1000, 1, w.internStack(frames.data(), frames.size()), ThreadState::Running, 1});
  w.finish(t + 1000);
}

}  // namespace stackscope::format::testing

// The call graph: nodes are methods (the stack profile's frames), edges caller -> callee, each
// with the metric's value of the events it is part of, counted ONCE per event however often
// recursion repeats a method or an edge on the stack, so no cumulative value ever exceeds the
// view's total. An edge's recursive value (rc) is that of the events where the edge calls a
// method already on the stack above it: direct (a -> a) or indirect (a -> b -> a) recursion.
//
// Pruning (`prune_percent`) keeps the nodes whose total is at least that share of the view:
// a stack's pruned frames are left out of it, so a kept frame hangs from its nearest kept
// caller (an edge that stands for the calls in between) and a pruned top frame's self value
// goes to the nearest kept frame below it: the graph stays connected and its totals true.
// Edges below that share go too, except each kept method's heaviest call into it, so every
// kept method keeps a caller. `max_nodes` (0 = no limit) then keeps only the hottest methods
// by total, the same way: a picture of hundreds of methods and thousands of calls is one that
// neither Graphviz's dot lays out in reasonable time nor anyone reads.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/stack_profile.h"

namespace stackscope::analysis {

struct GraphNode {
  uint32_t frame = 0;    // index into CallGraph::frames
  uint64_t self = 0;     // events with it on top
  uint64_t total = 0;    // events with it anywhere on the stack, once each
  uint64_t samples = 0;  // the events' weight, for total
};

struct GraphEdge {
  uint32_t caller = 0, callee = 0;  // indexes into CallGraph::nodes
  uint64_t value = 0;       // events with this call on the stack, once each
  uint64_t samples = 0;     // their weight: the call's count in sampled data
  uint64_t recursive = 0;   // the part of value where the call is recursive
};

struct CallGraph {
  std::vector<ProfileFrame> frames;
  std::vector<GraphNode> nodes;   // by total, largest first
  std::vector<GraphEdge> edges;   // by value, largest first
  ViewTotals totals;
  uint64_t pruned_nodes = 0;      // left out by prune_percent or max_nodes
  uint64_t pruned_edges = 0;      // left out by prune_percent
};

CallGraph callGraph(const StackProfile& profile, double prune_percent = 0, size_t max_nodes = 0);

}  // namespace stackscope::analysis

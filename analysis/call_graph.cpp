#include "analysis/call_graph.h"

#include <algorithm>
#include <map>
#include <set>

namespace stackscope::analysis {

namespace {

// The frames with events that pruning keeps: a total of at least `threshold`, and of those the
// `max_nodes` largest (ties to the frame met first), when max_nodes is not 0.
std::vector<uint8_t> keptFrames(const std::vector<uint64_t>& total, const std::vector<uint64_t>& samples,
                                double threshold, size_t max_nodes) {
  std::vector<uint32_t> candidates;
  for (uint32_t frame = 0; frame < total.size(); ++frame)
    if (samples[frame] > 0 && static_cast<double>(total[frame]) >= threshold) candidates.push_back(frame);
  if (max_nodes > 0 && candidates.size() > max_nodes) {
    std::stable_sort(candidates.begin(), candidates.end(), [&](uint32_t a, uint32_t b) { return total[a] > total[b]; });
    candidates.resize(max_nodes);
  }
  std::vector<uint8_t> kept(total.size(), 0);
  for (uint32_t frame : candidates) kept[frame] = 1;
  return kept;
}

// Leaves out the edges below `threshold`, but not a callee's heaviest incoming edge.
void pruneEdges(CallGraph& graph, double threshold) {
  std::vector<int64_t> heaviest_into(graph.nodes.size(), -1);
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    int64_t& best = heaviest_into[graph.edges[i].callee];
    if (best < 0 || graph.edges[i].value > graph.edges[static_cast<size_t>(best)].value) best = static_cast<int64_t>(i);
  }
  std::vector<GraphEdge> kept;
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    if (static_cast<double>(graph.edges[i].value) >= threshold || heaviest_into[graph.edges[i].callee] == static_cast<int64_t>(i))
      kept.push_back(graph.edges[i]);
    else
      ++graph.pruned_edges;
  }
  graph.edges = std::move(kept);
}

}  // namespace

CallGraph callGraph(const StackProfile& profile, double prune_percent, size_t max_nodes) {
  CallGraph graph;
  graph.frames = profile.frames;
  graph.totals = profile.totals;

  // Totals first (once per stack), to know what pruning keeps.
  std::vector<uint64_t> total(profile.frames.size(), 0), samples(profile.frames.size(), 0);
  std::vector<uint8_t> seen(profile.frames.size(), 0);
  for (const ProfileStack& stack : profile.stacks) {
    for (uint32_t frame : stack.frames) {
      if (seen[frame]) continue;
      seen[frame] = 1;
      total[frame] += stack.value;
      samples[frame] += stack.samples;
    }
    for (uint32_t frame : stack.frames) seen[frame] = 0;
  }
  const double threshold = prune_percent / 100.0 * static_cast<double>(profile.totals.value);
  const std::vector<uint8_t> kept = keptFrames(total, samples, threshold, max_nodes);
  std::vector<int64_t> node_of(profile.frames.size(), -1);
  for (uint32_t frame = 0; frame < profile.frames.size(); ++frame) {
    if (samples[frame] == 0) continue;
    if (!kept[frame]) {
      ++graph.pruned_nodes;
      continue;
    }
    node_of[frame] = static_cast<int64_t>(graph.nodes.size());
    graph.nodes.push_back({frame, 0, total[frame], samples[frame]});
  }

  std::map<std::pair<uint32_t, uint32_t>, GraphEdge> edges;
  std::vector<uint32_t> path;
  std::set<std::pair<uint32_t, uint32_t>> counted;
  for (const ProfileStack& stack : profile.stacks) {
    path.clear();
    for (uint32_t frame : stack.frames)
      if (node_of[frame] >= 0) path.push_back(static_cast<uint32_t>(node_of[frame]));
    if (path.empty()) continue;  // every frame pruned: the value stays in the totals only
    graph.nodes[path.back()].self += stack.value;
    counted.clear();
    for (size_t i = 1; i < path.size(); ++i) {
      const std::pair<uint32_t, uint32_t> key{path[i - 1], path[i]};
      if (!counted.insert(key).second) continue;
      GraphEdge& edge = edges[key];
      edge.caller = key.first;
      edge.callee = key.second;
      edge.value += stack.value;
      edge.samples += stack.samples;
      // Recursive where the callee is already among the frames above: at its first occurrence
      // in this stack, since later ones repeat the same call.
      if (std::find(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(i), path[i]) != path.begin() + static_cast<std::ptrdiff_t>(i))
        edge.recursive += stack.value;
    }
  }
  for (auto& [key, edge] : edges) graph.edges.push_back(edge);
  if (prune_percent > 0) pruneEdges(graph, threshold);

  // Sorted for people: nodes by total, edges by value; node indexes in edges follow the sort.
  std::vector<uint32_t> order(graph.nodes.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return graph.nodes[a].total > graph.nodes[b].total; });
  std::vector<uint32_t> rank(order.size());
  std::vector<GraphNode> sorted;
  for (uint32_t i = 0; i < order.size(); ++i) {
    rank[order[i]] = i;
    sorted.push_back(graph.nodes[order[i]]);
  }
  graph.nodes = std::move(sorted);
  for (GraphEdge& edge : graph.edges) {
    edge.caller = rank[edge.caller];
    edge.callee = rank[edge.callee];
  }
  std::stable_sort(graph.edges.begin(), graph.edges.end(), [](const GraphEdge& a, const GraphEdge& b) { return a.value > b.value; });
  return graph;
}

}  // namespace stackscope::analysis

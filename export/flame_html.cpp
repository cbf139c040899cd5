#include "export/flame_html.h"

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>

namespace stackscope::exporting {

extern const char* const kFlameTemplate;  // flame_template.cpp, generated from flame_template.html

namespace {

using nlohmann::json;

json metricsJson(const std::vector<const analysis::MetricInfo*>& metrics) {
  json out = json::array();
  for (const analysis::MetricInfo* metric : metrics) out.push_back({{"name", metric->name}, {"unit", analysis::unitName(metric->unit)}});
  return out;
}

// The call tree of one kind as nodes [frame, parent, [self value per metric]], parents before
// their children (node 0 is the root, "all", with frame -1), built from the profiles' stacks:
// every profile of a kind has the same stacks in the same order, only their values differ.
json kindJson(const FlameKind& kind) {
  const analysis::StackProfile& first = kind.profiles.front();
  json frames = json::array();
  for (const analysis::ProfileFrame& frame : first.frames)
    frames.push_back({frame.name, analysis::profileFrameKindName(frame.kind)});

  std::vector<std::vector<uint64_t>> self(1, std::vector<uint64_t>(kind.metrics.size(), 0));
  std::vector<std::pair<int64_t, size_t>> tree(1, {-1, 0});  // (frame, parent)
  std::map<std::pair<size_t, uint32_t>, size_t> child;        // (parent, frame) -> node
  for (size_t s = 0; s < first.stacks.size(); ++s) {
    size_t node = 0;
    for (uint32_t frame : first.stacks[s].frames) {
      auto [it, inserted] = child.try_emplace({node, frame}, tree.size());
      if (inserted) {
        tree.emplace_back(frame, node);
        self.emplace_back(kind.metrics.size(), 0);
      }
      node = it->second;
    }
    for (size_t m = 0; m < kind.profiles.size(); ++m) {
      const analysis::StackProfile& profile = kind.profiles[m];
      if (profile.stacks.size() != first.stacks.size() || profile.stacks[s].frames != first.stacks[s].frames)
        throw std::logic_error("flame graph: the profiles of one kind differ in their stacks");
      self[node][m] += profile.stacks[s].value;
    }
  }
  json nodes = json::array();
  for (size_t n = 0; n < tree.size(); ++n) nodes.push_back({tree[n].first, tree[n].second, self[n]});

  return {{"event", analysis::eventKindName(kind.kind)}, {"what", analysis::eventKindInfo(kind.kind).what},
          {"metrics", metricsJson(kind.metrics)}, {"frames", std::move(frames)}, {"nodes", std::move(nodes)}};
}

// The merged tree as a kind of the page: nodes [frame, parent, [new self], [baseline self]].
json diffKindJson(const FlameBaseline& baseline) {
  const analysis::DiffTree& tree = *baseline.tree;
  json frames = json::array();
  json nodes = json::array();
  std::map<std::pair<std::string, analysis::ProfileFrameKind>, size_t> frame_of;
  for (size_t i = 0; i < tree.nodes.size(); ++i) {
    const analysis::DiffTreeNode& n = tree.nodes[i];
    int64_t frame = -1;
    if (i != analysis::DiffTree::kRoot) {
      auto [it, added] = frame_of.try_emplace({n.name, n.kind}, frames.size());
      if (added) frames.push_back({n.name, analysis::profileFrameKindName(n.kind)});
      frame = static_cast<int64_t>(it->second);
    }
    nodes.push_back({frame, n.parent, json::array({n.next_self}), json::array({n.base_self})});
  }
  return {{"event", analysis::eventKindName(baseline.kind)}, {"what", analysis::eventKindInfo(baseline.kind).what},
          {"metrics", metricsJson({baseline.metric})}, {"frames", std::move(frames)}, {"nodes", std::move(nodes)}};
}

void writePage(std::ostream& out, const json& data) {
  // Inside <script> the only sequence that ends it early is "</": JSON lets "/" be escaped.
  std::string text = data.dump();
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3)) text.replace(at, 2, "<\\/");
  const std::string page = kFlameTemplate;
  const std::string placeholder = "\"@FLAME_DATA@\"";
  const size_t at = page.find(placeholder);
  if (at == std::string::npos) throw std::logic_error("flame_template.html has no data placeholder");
  out << page.substr(0, at) << text << page.substr(at + placeholder.size());
}

}  // namespace

void writeFlameHtml(std::ostream& out, const std::vector<FlameKind>& kinds, const FlameOptions& options) {
  json data = {{"title", options.title}, {"initialKind", options.initial_kind}, {"initialMetric", options.initial_metric},
               {"kinds", json::array()}};
  for (const FlameKind& kind : kinds) data["kinds"].push_back(kindJson(kind));
  writePage(out, data);
}

void writeDiffFlameHtml(std::ostream& out, const FlameBaseline& baseline, const FlameOptions& options) {
  const analysis::DiffTree& tree = *baseline.tree;
  // What the baseline held on paths the new side never took: not drawable, so told.
  uint64_t base_only = 0;
  for (const analysis::DiffTreeNode& n : tree.nodes)
    if (n.next_total == 0 && n.base_total > 0 && (n.parent == analysis::DiffTree::kRoot || tree.nodes[n.parent].next_total > 0))
      base_only += n.base_total;
  json data = {{"title", options.title},
               {"initialKind", 0},
               {"initialMetric", 0},
               {"baseline", {{"name", baseline.base_name}, {"total", tree.base.value}, {"onlyInBaseline", base_only}}},
               {"kinds", json::array({diffKindJson(baseline)})}};
  writePage(out, data);
}

}  // namespace stackscope::exporting

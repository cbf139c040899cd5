#include "export/json_report.h"

#include "analysis/names.h"

namespace stackscope::exporting {

Json stateCounts(const analysis::StateCounts& states) {
  Json out = Json::object();
  for (size_t s = 0; s < states.size(); ++s)
    if (states[s] > 0) out[format::threadStateName(static_cast<format::ThreadState>(s))] = states[s];
  return out;
}

namespace {

Json timeOrNull(int64_t time_ns) { return time_ns == analysis::ThreadInfo::kUnknownTime ? Json(nullptr) : Json(time_ns); }

}  // namespace

Json methodJson(const analysis::MethodNames& names, const analysis::Recording& rec, uint32_t method, uint32_t line,
                uint8_t kinds, const ReportOptions& options) {
  const analysis::MethodName& name = names[method];
  Json out{{"method", name.name},
           {"display", name.display},
           {"params", name.params},
           {"signature", analysis::methodSignature(rec, method)},
           {"raw", name.raw}};
  if (const auto raw = names.rawNames(method); raw.size() > 1) out["raw_merged"] = raw;
  out["kind"] = analysis::frameKindName(kinds);
  if (options.lines) out["line"] = line == 0 ? Json(nullptr) : Json(line);
  return out;
}

Json methodsJson(const analysis::Recording& rec, const analysis::MethodStats& stats, const ReportOptions& options) {
  Json out = jsonHeader(rec, options, "methods", stats.totals);
  out["methods_in_view"] = stats.methods.size();
  const analysis::MethodNames names(rec);
  Json methods = Json::array();
  const size_t shown = options.rows(stats.methods.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::MethodStat& m = stats.methods[i];
    Json item = methodJson(names, rec, m.method, m.line, m.kinds, options);
    item["self"] = m.self;
    item["total"] = m.total;
    item["self_pct"] = jsonPercent(m.self, stats.totals.value);
    item["total_pct"] = jsonPercent(m.total, stats.totals.value);
    methods.push_back(std::move(item));
  }
  out["methods"] = std::move(methods);
  return out;
}

Json treeJson(const analysis::Recording& rec, const analysis::CallTree& tree, const ReportOptions& options) {
  Json out = jsonHeader(rec, options, "tree", tree.totals);
  const std::vector<uint32_t> order = tree.preorder();
  out["nodes_in_view"] = order.size();
  const analysis::MethodNames names(rec);
  Json nodes = Json::array();
  const size_t shown = options.rows(order.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::CallTreeNode& node = tree.nodes[order[i]];
    Json parent = nullptr;
    if (node.parent != analysis::CallTree::kRoot) parent = node.parent;
    Json item{{"id", order[i]},
              {"parent", parent},
              {"level", node.level},
              {"rl", node.rl},
              {"calls", node.calls},
              {"base", node.base},
              {"cum", node.cum},
              {"cum_pct", jsonPercent(node.cum, tree.totals.value)}};
    item.update(methodJson(names, rec, node.method, node.line, node.kinds, options));
    nodes.push_back(std::move(item));
  }
  out["nodes"] = std::move(nodes);
  return out;
}

Json threadsJson(const analysis::Recording& rec, const analysis::ThreadStats& stats, const ReportOptions& options) {
  Json out = jsonHeader(rec, options, "threads", stats.totals);
  out["states"] = stateCounts(stats.states);
  Json threads = Json::array();
  const size_t shown = options.rows(stats.threads.size());
  for (size_t i = 0; i < shown; ++i) {
    const analysis::ThreadStat& t = stats.threads[i];
    const analysis::ThreadInfo& info = rec.threads[t.thread];
    threads.push_back({{"name", analysis::threadName(rec, t.thread)},
                       {"names", info.names},
                       {"id", t.thread},
                       {"os_tid", info.os_tid},
                       {"java_id", info.java_id},
                       {metricKey(options), t.value},
                       {"pct", jsonPercent(t.value, stats.totals.value)},
                       {"states", stateCounts(t.states)},
                       {"start_ns", timeOrNull(info.start_ns)},
                       {"end_ns", timeOrNull(info.end_ns)}});
  }
  out["threads"] = std::move(threads);
  return out;
}

// Names come from the profiled program and are not guaranteed to be UTF-8: replace bad
// bytes rather than fail the whole report.
void writeJson(std::ostream& out, const Json& json) {
  out << json.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace stackscope::exporting

#include "analysis/summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/call_graph.h"
#include "analysis/call_tree.h"
#include "analysis/names.h"
#include "analysis/stack_profile.h"
#include "analysis/thread_stats.h"

namespace stackscope::analysis {

namespace {

constexpr double kPathShareFloor = 1.0;  // percent of the total

// The library a frame's code is in: a Java frame's module ("java.base") or jar file
// ("h2-2.2.224.jar"; a class directory by its path), a native frame's module ("libjvm.so",
// "[kernel]"); recordings that do not name a class's library say "JDK" or "application classes".
std::string libraryOf(const ProfileFrame& frame) {
  switch (frame.kind) {
    case ProfileFrameKind::Jdk:
    case ProfileFrameKind::Java:
      if (frame.library.ends_with(".jar")) return frame.library.substr(frame.library.rfind('/') + 1);
      if (!frame.library.empty()) return frame.library;
      return frame.kind == ProfileFrameKind::Jdk ? "JDK" : "application classes";
    case ProfileFrameKind::Native:
    case ProfileFrameKind::Kernel: return frame.file.empty() ? "native (module unknown)" : frame.file;
    case ProfileFrameKind::Other: break;
  }
  return "pseudo-frames ([stub], [vm], ...)";
}

// "java.util.HashMap.get" -> "java.util"; "" for a class in no package or a non-Java frame.
std::string packageOf(const ProfileFrame& frame) {
  if (frame.kind != ProfileFrameKind::Java && frame.kind != ProfileFrameKind::Jdk) return "";
  const std::string name = frame.name.substr(0, frame.name.find('('));
  const size_t method_dot = name.rfind('.');
  if (method_dot == std::string::npos || method_dot == 0) return "";
  const size_t class_dot = name.rfind('.', method_dot - 1);
  return class_dot == std::string::npos ? "(default package)" : name.substr(0, class_dot);
}

// Self and total per key of a frame (library, package), each event counted once per key.
template <typename KeyOf>
std::vector<SummaryPart> partsByKey(const StackProfile& profile, KeyOf key_of) {
  std::map<std::string, SummaryPart> parts;
  for (const ProfileStack& stack : profile.stacks) {
    std::set<std::string> seen;
    for (uint32_t frame : stack.frames) {
      const std::string key = key_of(profile.frames[frame]);
      if (!key.empty() && seen.insert(key).second) parts[key].total += stack.value;
    }
    if (stack.frames.empty()) continue;
    const std::string top = key_of(profile.frames[stack.frames.back()]);
    if (!top.empty()) parts[top].self += stack.value;
  }
  std::vector<SummaryPart> out;
  for (auto& [name, part] : parts) {
    part.name = name;
    out.push_back(part);
  }
  std::stable_sort(out.begin(), out.end(), [](const SummaryPart& a, const SummaryPart& b) { return a.total > b.total; });
  return out;
}

// The innermost frame of a start stack that is not the JDK's way in (Thread.start, start0, and
// on JDK 21+ System$1.start and jdk.internal.vm.SharedThreadContainer.start): the method that
// started the thread.
std::string startingMethod(const Recording& recording, const MethodNames& names, uint32_t stack) {
  for (const format::Frame& frame : recording.stack(stack)) {
    const std::string& name = names[frame.method].name;
    const size_t dot = name.rfind('.');
    const bool jdk_start = (name.starts_with("java.lang.") || name.starts_with("jdk.internal.")) && dot != std::string::npos &&
                           name.compare(dot + 1, 5, "start") == 0;
    if (!jdk_start) return names[frame.method].display;
  }
  return "";
}

std::vector<SummaryThread> threadTree(const Recording& recording, const ThreadStats& stats) {
  const size_t n = recording.threads.size();
  std::vector<uint64_t> own(n, 0), below(n, 0);
  for (const ThreadStat& t : stats.threads) own[t.thread] = t.value;
  bool any_parent = false;
  std::vector<std::vector<uint32_t>> children(n);
  std::vector<bool> shown(n, false);
  for (uint32_t t = 1; t < n; ++t) {
    const uint32_t parent = recording.threads[t].parent;
    if (parent != 0) {
      any_parent = true;
      children[parent].push_back(t);
    }
    if (stats.threads.empty() || own[t] == 0) continue;
    // A thread with events, and every thread above it (linked without cycles by the loader).
    for (uint32_t a = t; a != 0 && !shown[a]; a = recording.threads[a].parent) shown[a] = true;
  }
  if (!any_parent) return {};
  for (uint32_t t = 1; t < n; ++t)
    for (uint32_t a = t; a != 0; a = recording.threads[a].parent) below[a] += own[t];
  const MethodNames names(recording);
  std::vector<SummaryThread> out;
  const auto heavier = [&](uint32_t a, uint32_t b) { return below[a] != below[b] ? below[a] > below[b] : a < b; };
  std::vector<std::pair<uint32_t, size_t>> pending;
  std::vector<uint32_t> roots;
  for (uint32_t t = 1; t < n; ++t)
    if (shown[t] && recording.threads[t].parent == 0) roots.push_back(t);
  std::sort(roots.begin(), roots.end(), heavier);
  for (auto it = roots.rbegin(); it != roots.rend(); ++it) pending.emplace_back(*it, 0);
  while (!pending.empty()) {
    const auto [t, depth] = pending.back();
    pending.pop_back();
    const ThreadInfo& info = recording.threads[t];
    out.push_back({threadName(recording, t), depth, own[t], below[t],
                   info.parent != 0 ? startingMethod(recording, names, info.parent_stack) : ""});
    std::vector<uint32_t> kids;
    for (uint32_t c : children[t])
      if (shown[c]) kids.push_back(c);
    std::sort(kids.begin(), kids.end(), heavier);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) pending.emplace_back(*it, depth + 1);
  }
  return out;
}

template <typename T>
void keepTop(std::vector<T>& items, size_t top) {
  if (items.size() > top) items.resize(top);
}

}  // namespace

Summary summarize(const Recording& recording, const EventScope& scope, size_t top) {
  Summary summary;
  const StackProfile profile = stackProfile(recording, scope, false);
  const CallGraph graph = callGraph(profile);
  summary.totals = graph.totals;
  summary.methods = graph.nodes.size();
  summary.calls = graph.edges.size();
  const auto name_of_node = [&](uint32_t node) { return graph.frames[graph.nodes[node].frame].name; };
  for (const GraphEdge& e : graph.edges) {
    summary.call_value += e.value;
    summary.recursive_value += e.recursive;
    if (e.recursive > 0) ++summary.recursive_calls;
  }
  for (const GraphNode& n : graph.nodes) summary.hottest_methods.push_back({graph.frames[n.frame].name, n.self, n.total});
  std::sort(summary.hottest_methods.begin(), summary.hottest_methods.end(), [](const SummaryPart& a, const SummaryPart& b) {
    if (a.self != b.self) return a.self > b.self;
    return a.total != b.total ? a.total > b.total : a.name < b.name;
  });
  keepTop(summary.hottest_methods, top);
  for (size_t i = 0; i < graph.edges.size() && i < top; ++i) {
    const GraphEdge& e = graph.edges[i];
    summary.hottest_calls.push_back({name_of_node(e.caller), name_of_node(e.callee), e.value, e.samples, e.recursive});
  }

  const CallTree tree = buildCallTree(recording, scope);
  const MethodNames names(recording);
  // Down the hottest child (children are by Cum) while it holds a visible share: a path that
  // goes on through crumbs of 0.01 % says nothing.
  for (uint32_t node = CallTree::kRoot; !tree.nodes[node].children.empty();) {
    node = tree.nodes[node].children.front();
    if (percent(tree.nodes[node].cum, summary.totals.value) < kPathShareFloor) break;
    summary.hottest_path.push_back({names[tree.nodes[node].method].display, tree.nodes[node].cum});
  }
  // The deepest recursion; of equally deep ones, the first by name (the same answer every run).
  for (size_t i = 1; i < tree.nodes.size(); ++i) {
    const CallTreeNode& n = tree.nodes[i];
    if (n.cum == 0 || n.rl == 0 || n.rl + 1 < summary.deepest_recursion) continue;
    const std::string& name = names[n.method].display;
    if (n.rl + 1 > summary.deepest_recursion || name < summary.deepest_recursion_method) {
      summary.deepest_recursion = n.rl + 1;
      summary.deepest_recursion_method = name;
    }
  }

  const ThreadStats threads = computeThreadStats(recording, scope);
  summary.threads = threads.threads.size();
  for (const ThreadStat& t : threads.threads) {
    if (summary.hottest_threads.size() == top) break;
    summary.hottest_threads.push_back({threadName(recording, t.thread), t.value, t.value});
  }
  summary.thread_tree = threadTree(recording, threads);
  summary.libraries = partsByKey(profile, libraryOf);
  summary.libraries_unnamed = std::any_of(profile.frames.begin(), profile.frames.end(), [](const ProfileFrame& f) {
    return (f.kind == ProfileFrameKind::Java || f.kind == ProfileFrameKind::Jdk) && f.library.empty();
  });
  summary.packages = partsByKey(profile, packageOf);
  keepTop(summary.packages, top);
  return summary;
}

}  // namespace stackscope::analysis

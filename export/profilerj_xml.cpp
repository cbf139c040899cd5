#include "export/profilerj_xml.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "analysis/call_tree.h"
#include "analysis/names.h"
#include "analysis/thread_stats.h"
#include "export/xml_text.h"

namespace stackscope::exporting {

namespace {

using analysis::CallTree;
using analysis::Event;
using analysis::EventKind;
using analysis::EventPredicate;
using analysis::Recording;

EventPredicate both(const EventPredicate& keep, EventPredicate also) {
  if (!keep) return also;
  return [keep, also = std::move(also)](const Event& e) { return keep(e) && also(e); };
}

// ProfilerJ names a sampled Java method `pkg.Class.method()` (the sampler has no signature)
// and a native one `…method(native)`; native functions and pseudo-frames keep their names.
std::string profilerJName(const Recording& rec, const analysis::MethodNames& names, uint32_t method, uint8_t kinds) {
  const analysis::MethodInfo& info = rec.methods[method < rec.methods.size() ? method : 0];
  if (rec.string(info.class_name).empty()) return names[method].name;
  return names[method].name + (kinds == analysis::FrameKeys::kNative ? "(native)" : "()");
}

// One thread's samples as two trees of the same paths: in any state, and running only (a
// subset). Written as one <profile> tree, each node with both counts.
class SamplerTree {
 public:
  SamplerTree(const Recording& rec, const analysis::MethodNames& names, const CallTree& all, const CallTree& running)
      : rec_(rec), names_(names), all_(all), running_(running) {}

  void write(std::ostream& out, uint32_t node, uint32_t running_node, int depth) const {
    for (uint32_t child : all_.nodes[node].children) {
      const analysis::CallTreeNode& n = all_.nodes[child];
      const uint32_t run = running_node == kNone ? kNone : runningChild(running_node, n);
      const analysis::CallTreeNode* r = run == kNone ? nullptr : &running_.nodes[run];
      indent(out, depth);
      out << "<profile name=\"" << xmlEscaped(profilerJName(rec_, names_, n.method, n.kinds)) << "\" hits=\""
          << (r ? r->base : 0) << "\" elapsed=\"" << n.base << "\" cumulated=\"" << (r ? r->cum : 0)
          << "\" cumulatedElapsed=\"" << n.cum << "\"";
      if (n.children.empty()) {
        out << "/>\n";
        continue;
      }
      out << ">\n";
      write(out, child, run, depth + 1);
      indent(out, depth);
      out << "</profile>\n";
    }
  }

  static constexpr uint32_t kNone = ~0u;

 private:
  uint32_t runningChild(uint32_t running_parent, const analysis::CallTreeNode& like) const {
    for (uint32_t c : running_.nodes[running_parent].children) {
      const analysis::CallTreeNode& n = running_.nodes[c];
      if (n.method == like.method && n.kinds == like.kinds && n.line == like.line) return c;
    }
    return kNone;
  }
  static void indent(std::ostream& out, int depth) { out << std::string(static_cast<size_t>(2 * depth), ' '); }

  const Recording& rec_;
  const analysis::MethodNames& names_;
  const CallTree& all_;
  const CallTree& running_;
};

// The kind the sampler section shows: wall samples (every state, as ProfilerJ's sampler) when
// the recording has them, else cpu samples (all running).
std::optional<EventKind> samplerKind(const Recording& rec) {
  const std::vector<EventKind> kinds = rec.eventKinds();
  for (EventKind kind : {EventKind::Wall, EventKind::Cpu})
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return kind;
  return std::nullopt;
}

// A thread's CPU time in the selection: the sum of its samples' measured CPU deltas when the
// recording has them, else its running samples times the interval (an estimate).
const analysis::MetricInfo& cpuMetric(const Recording& rec, EventKind kind) {
  const analysis::MetricInfo* measured = analysis::findMetric(kind, "cpu-time");
  if (measured && (rec.info.sample_metrics & measured->sample_metric)) return *measured;
  return *analysis::findMetric(kind, "time");
}

void writeSampler(std::ostream& out, const Recording& rec, const EventPredicate& keep, EventKind kind) {
  const analysis::MetricInfo& samples = *analysis::findMetric(kind, "samples");
  const analysis::MetricInfo& cpu = cpuMetric(rec, kind);
  const auto is_running = [](const Event& e) { return e.state == format::ThreadState::Running; };
  const analysis::ThreadStats all = analysis::computeThreadStats(rec, {kind, &samples, keep});
  const analysis::ThreadStats cpu_time = analysis::computeThreadStats(rec, {kind, &cpu, both(keep, is_running)});
  std::unordered_map<uint32_t, uint64_t> cpu_of;
  for (const analysis::ThreadStat& t : cpu_time.threads) cpu_of[t.thread] = t.value;
  const analysis::MethodNames names(rec);
  const int64_t from = std::max<int64_t>(rec.window.from_ns, 0), to = rec.windowEndNs();
  out << "  <!-- " << analysis::eventKindName(kind) << " samples every " << rec.info.interval_ns
      << " ns; cpuTime: " << (cpu.source == analysis::MetricSource::Amount ? "measured per thread" : "running samples x interval (an estimate)")
      << " -->\n  <sampler>\n";
  for (const analysis::ThreadStat& t : all.threads) {
    const uint32_t thread = t.thread;
    const auto on_thread = [thread](const Event& e) { return e.thread == thread; };
    const CallTree tree = analysis::buildCallTree(rec, {kind, &samples, both(keep, on_thread)});
    const CallTree running = analysis::buildCallTree(rec, {kind, &samples, both(keep, [thread](const Event& e) {
                                                            return e.thread == thread && e.state == format::ThreadState::Running;
                                                          })});
    const analysis::ThreadInfo& info = rec.threads[thread];
    const int64_t start = info.start_ns == analysis::ThreadInfo::kUnknownTime ? from : std::max(info.start_ns, from);
    const bool alive = info.end_ns == analysis::ThreadInfo::kUnknownTime || info.end_ns >= to;
    const int64_t end = alive ? to : info.end_ns;
    out << "    <thread name=\"" << xmlEscaped(analysis::threadName(rec, thread)) << "\" cumulated=\""
        << t.states[static_cast<size_t>(format::ThreadState::Running)] << "\" cpuTime=\"" << cpu_of[thread]
        << "\" cumulatedElapsed=\"" << t.value << "\" elapsedTime=\"" << std::max<int64_t>(end - start, 0)
        << "\" isAlive=\"" << (alive ? "true" : "false") << "\">\n";
    SamplerTree(rec, names, tree, running).write(out, CallTree::kRoot, CallTree::kRoot, 3);
    out << "    </thread>\n";
  }
  out << "  </sampler>\n";
}

// Per thread and class: the objects live at the end (count) and the most live at once (max).
struct ClassCounts {
  int64_t count = 0;
  int64_t max = 0;
};

void writeMemory(std::ostream& out, const Recording& rec, const EventPredicate& keep) {
  const analysis::MetricInfo& objects = *analysis::findMetric(EventKind::Alloc, "objects");
  const bool deaths = !rec.freed_ns.empty();
  // (thread, class) -> (time, +objects at the allocation / -objects at the death)
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<int64_t, int64_t>>> changes;
  const analysis::MetricValue value(rec, objects);
  for (size_t i = 0; i < rec.events.size(); ++i) {
    const Event& e = rec.events[i];
    if (e.kind != EventKind::Alloc || (keep && !keep(e))) continue;
    auto& list = changes[{e.thread, rec.label(e, analysis::Label::ObjectClass)}];
    const auto n = static_cast<int64_t>(value(e, i));
    list.emplace_back(e.time_ns, n);
    if (deaths && rec.freed_ns[i] != Recording::kNotFreed) list.emplace_back(rec.freed_ns[i], -n);
  }
  std::map<uint32_t, std::vector<std::pair<std::string, ClassCounts>>> by_thread;
  for (auto& [key, list] : changes) {
    std::sort(list.begin(), list.end());  // at one instant, a death before a birth: no false peak
    ClassCounts c;
    for (const auto& change : list) c.max = std::max(c.max, c.count += change.second);
    by_thread[key.first].emplace_back(key.second ? rec.string(key.second) : "?", c);
  }
  out << "  <!-- objects estimated from the alloc trace's samples; "
      << (deaths ? "count: live at the end, max: the most live at once"
                 : "deaths were not traced (no live trace): count and max are the objects allocated")
      << " -->\n  <memory>\n";
  for (auto& [thread, classes] : by_thread) {
    std::sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) {
      return a.second.count != b.second.count ? a.second.count > b.second.count : a.first < b.first;
    });
    out << "    <thread name=\"" << xmlEscaped(analysis::threadName(rec, thread)) << "\">\n";
    for (const auto& [name, c] : classes)
      out << "      <memory class=\"" << xmlEscaped(name) << "\" count=\"" << c.count << "\" max=\"" << c.max << "\"/>\n";
    out << "    </thread>\n";
  }
  out << "  </memory>\n";
}

}  // namespace

void writeProfilerJXml(std::ostream& out, const Recording& recording, const EventPredicate& keep, const std::string& source) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- " << xmlCommentText(source)
      << ": a stackscope recording in the ProfilerJ snapshot format -->\n<doc>\n";
  if (const std::optional<EventKind> kind = samplerKind(recording)) writeSampler(out, recording, keep, *kind);
  if (recording.kinds_seen & (1u << static_cast<unsigned>(EventKind::Alloc))) writeMemory(out, recording, keep);
  out << "</doc>\n";
}

}  // namespace stackscope::exporting

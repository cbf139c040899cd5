#include "analysis/map_loader.h"

#include <algorithm>
#include <unordered_map>

namespace stackscope::analysis {

namespace {

// Sets each thread's parent from the ThreadParent records, found by its Java id. Links a
// damaged file could make wrong are left out: an unknown thread or stack, a second parent, a
// thread its own ancestor.
constexpr size_t kMaxThreadNesting = 256;

void linkThreadParents(Recording& rec, const std::vector<format::ThreadParentRecord>& parents) {
  std::unordered_map<int64_t, uint32_t> by_java_id;
  for (uint32_t t = 1; t < rec.threads.size(); ++t)
    if (rec.threads[t].defined && !rec.threads[t].is_virtual && rec.threads[t].java_id != 0) by_java_id[rec.threads[t].java_id] = t;
  for (const format::ThreadParentRecord& p : parents) {
    const auto child = by_java_id.find(p.child_java_id);
    if (child == by_java_id.end() || p.thread == 0 || p.thread >= rec.threads.size() || p.thread == child->second) continue;
    ThreadInfo& info = rec.threads[child->second];
    if (info.parent != 0) continue;
    // Refuse a cycle (the child above its parent) and chains deeper than any program starts:
    // the views that follow them recurse.
    uint32_t ancestor = p.thread;
    for (size_t steps = 0; ancestor != 0 && ancestor != child->second && steps < kMaxThreadNesting; ++steps)
      ancestor = rec.threads[ancestor].parent;
    if (ancestor != 0) continue;
    info.parent = p.thread;
    info.parent_stack = p.stack < rec.stacks.size() ? p.stack : 0;
    info.started_ns = p.time_ns;
  }
}

}  // namespace

void MapLoader::finish(format::RecordingReader& reader, DecodedEvents& events) {
  const int64_t last_event = std::max(events.last_event_ns, reader.lastEventTime());
  rec_.ended = events.ended;
  rec_.end_ns = events.ended ? events.end_ns : last_event;
  if (rec_.stacks.empty()) rec_.stacks.resize(1);  // id 0 is the empty stack of samples above
  if (rec_.stack_defined.empty()) rec_.stack_defined.resize(1);
  if (rec_.methods.empty()) rec_.methods.resize(1);
  if (rec_.threads.empty()) rec_.threads.resize(1);
  if (rec_.annotations.empty()) rec_.annotations.resize(1);
  if (name_natives_) {
    nameNativeFrames(rec_, native_);
    native_.clear();  // named: a later finish names only the ones read since
  }
  linkThreadParents(rec_, parents_);
  std::vector<std::string> warnings = agent_warnings_;
  warnings.insert(warnings.end(), reader.warnings().begin(), reader.warnings().end());
  warnings.insert(warnings.end(), rec_.warnings.begin(), rec_.warnings.end());  // the other readers'
  rec_.warnings = std::move(warnings);
  rec_.file_size = reader.fileSize();
  rec_.bytes_read += reader.bytesRead();
  finishEvents(rec_, events);
  if (const uint64_t rejected = rejected_ids_ + events.rejected_ids)
    rec_.warnings.push_back(std::to_string(rejected) + " records with implausible ids were ignored");
}

}  // namespace stackscope::analysis

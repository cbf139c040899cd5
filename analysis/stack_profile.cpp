#include "analysis/stack_profile.h"

#include <map>
#include <span>
#include <utility>
#include <unordered_map>

#include "analysis/names.h"
#include "analysis/stack_counts.h"

namespace stackscope::analysis {

namespace {

bool isJdkClass(const std::string& name) {
  for (const char* prefix : {"java.", "javax.", "jdk.", "sun.", "com.sun."})
    if (name.starts_with(prefix)) return true;
  return false;
}

ProfileFrameKind kindOf(const Recording& recording, const MethodInfo& info, const std::string& name) {
  if (!info.defined) return ProfileFrameKind::Other;
  if (!recording.string(info.class_name).empty()) return isJdkClass(name) ? ProfileFrameKind::Jdk : ProfileFrameKind::Java;
  if (recording.string(info.method_name).starts_with('[')) return ProfileFrameKind::Other;
  return recording.string(info.source_file) == "[kernel]" ? ProfileFrameKind::Kernel : ProfileFrameKind::Native;
}

}  // namespace

const char* profileFrameKindName(ProfileFrameKind kind) {
  switch (kind) {
    case ProfileFrameKind::Java: return "java";
    case ProfileFrameKind::Jdk: return "jdk";
    case ProfileFrameKind::Native: return "native";
    case ProfileFrameKind::Kernel: return "kernel";
    case ProfileFrameKind::Other: break;
  }
  return "other";
}

namespace {

// Builds a profile's frames and stacks. A frame is one per FrameKeys key and, when threads are
// merged, per thread level: the frames of a thread started by another are not the same nodes
// as its starter's, so a method both run is no recursion in the merged graph (seed 004:
// partitioned by nesting level before merging).
class ProfileBuilder {
 public:
  ProfileBuilder(const Recording& recording, bool lines)
      : rec_(recording), names_(recording), keys_(recording, names_, lines) {}

  // Adds `value` of `samples` events on `stack`, below `prefix` (outermost first).
  void add(const std::vector<uint32_t>& prefix, uint32_t stack, size_t level, uint64_t value, uint64_t samples) {
    const std::span<const format::Frame> frames = rec_.stack(stack);
    if (frames.empty()) return;
    path_ = prefix;
    for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) path_.push_back(frameIndex(*frame, level));
    auto [it, inserted] = stack_of_frames_.try_emplace(path_, profile_.stacks.size());
    if (inserted) profile_.stacks.push_back({path_, 0, 0});
    profile_.stacks[it->second].value += value;
    profile_.stacks[it->second].samples += samples;
  }

  // The frames above a thread's own when threads are merged: its starter's (and theirs, up to a
  // thread no one started) and a "[thread NAME]" frame; its level is how many starters it has.
  const std::vector<uint32_t>& prefixOf(uint32_t thread, size_t& level) {
    auto it = prefixes_.find(thread);
    if (it == prefixes_.end()) {
      const ThreadInfo& info = rec_.threads[thread];
      std::vector<uint32_t> prefix;
      size_t parent_level = 0;
      if (info.parent != 0) {
        prefix = prefixOf(info.parent, parent_level);  // no cycles: the loader refuses them
        const std::span<const format::Frame> frames = rec_.stack(info.parent_stack);
        for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) prefix.push_back(frameIndex(*frame, parent_level));
        prefix.push_back(threadFrame(thread));
        ++parent_level;
      }
      it = prefixes_.emplace(thread, std::make_pair(std::move(prefix), parent_level)).first;
    }
    level = it->second.second;
    return it->second.first;
  }

  StackProfile take(const ViewTotals& totals) {
    profile_.totals = totals;
    return std::move(profile_);
  }

 private:
  uint32_t frameIndex(const format::Frame& frame, size_t level) {
    const uint32_t key = keys_.of(frame);
    auto [it, inserted] = frame_of_key_.try_emplace(uint64_t{key} | (uint64_t{level} << 32), static_cast<uint32_t>(profile_.frames.size()));
    if (inserted) {
      const MethodInfo& info = rec_.methods[keys_.method(key)];
      ProfileFrame out;
      out.name = names_[keys_.method(key)].display;
      out.line = keys_.line(key);
      if (out.line != 0) out.name += ":" + std::to_string(out.line);
      out.file = rec_.string(info.source_file);
      out.kind = kindOf(rec_, info, names_[keys_.method(key)].name);
      out.library = rec_.string(info.code_source);
      out.thread_level = static_cast<uint32_t>(level);
      profile_.frames.push_back(std::move(out));
    }
    return it->second;
  }

  uint32_t threadFrame(uint32_t thread) {
    profile_.frames.push_back({"[thread " + threadName(rec_, thread) + "]", "", 0, ProfileFrameKind::Other, ""});
    return static_cast<uint32_t>(profile_.frames.size() - 1);
  }

  const Recording& rec_;
  const MethodNames names_;
  const FrameKeys keys_;
  StackProfile profile_;
  std::unordered_map<uint64_t, uint32_t> frame_of_key_;  // FrameKeys key | level << 32 -> frame
  // Stacks that differ only in what views do not tell apart (bcis, lambda classes merged into
  // one identity) are one stack of the profile.
  std::map<std::vector<uint32_t>, size_t> stack_of_frames_;
  std::unordered_map<uint32_t, std::pair<std::vector<uint32_t>, size_t>> prefixes_;
  std::vector<uint32_t> path_;
};

}  // namespace

StackProfile stackProfile(const Recording& recording, const EventScope& scope, bool lines, bool merge_threads) {
  ProfileBuilder builder(recording, lines);
  const std::vector<uint32_t> no_prefix;
  if (!merge_threads) {
    const StackValues values = valuesByStack(recording, scope);
    for (uint32_t stack = 0; stack < recording.stacks.size(); ++stack)
      if (values.samples_by_stack[stack] != 0)
        builder.add(no_prefix, stack, 0, values.by_stack[stack], values.samples_by_stack[stack]);
    return builder.take(values.totals);
  }
  // Per thread and stack: each thread's stacks hang below the call that started it.
  std::map<std::pair<uint32_t, uint32_t>, std::pair<uint64_t, uint64_t>> by_thread_stack;
  const ViewTotals totals = forEachEvent(recording, scope, [&](const Event& e, uint64_t value) {
    auto& sum = by_thread_stack[{e.thread, e.stack}];
    sum.first += value;
    sum.second += e.weight;
  });
  for (const auto& [key, sum] : by_thread_stack) {
    size_t level = 0;
    const std::vector<uint32_t>& prefix = builder.prefixOf(key.first, level);
    builder.add(prefix, key.second, level, sum.first, sum.second);
  }
  return builder.take(totals);
}

}  // namespace stackscope::analysis

#include "analysis/stack_profile.h"

#include <map>
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

StackProfile stackProfile(const Recording& recording, const EventScope& scope, bool lines) {
  StackProfile profile;
  const StackValues values = valuesByStack(recording, scope);
  profile.totals = values.totals;

  const MethodNames names(recording);
  const FrameKeys keys(recording, names, lines);
  std::unordered_map<uint32_t, uint32_t> frame_of_key;  // FrameKeys key -> index in profile.frames
  auto frameIndex = [&](const format::Frame& frame) {
    const uint32_t key = keys.of(frame);
    auto [it, inserted] = frame_of_key.try_emplace(key, static_cast<uint32_t>(profile.frames.size()));
    if (inserted) {
      const MethodInfo& info = recording.methods[keys.method(key)];
      ProfileFrame out;
      out.name = names[keys.method(key)].display;
      out.line = keys.line(key);
      if (out.line != 0) out.name += ":" + std::to_string(out.line);
      out.file = recording.string(info.source_file);
      out.kind = kindOf(recording, info, names[keys.method(key)].name);
      profile.frames.push_back(std::move(out));
    }
    return it->second;
  };
  // Stacks that differ only in what views do not tell apart (bcis, lambda classes merged into
  // one identity) are one stack of the profile.
  std::map<std::vector<uint32_t>, size_t> stack_of_frames;
  std::vector<uint32_t> path;
  for (uint32_t stack = 0; stack < recording.stacks.size(); ++stack) {
    if (values.samples_by_stack[stack] == 0) continue;
    const std::span<const format::Frame> frames = recording.stack(stack);
    if (frames.empty()) continue;
    path.clear();
    for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame) path.push_back(frameIndex(*frame));
    auto [it, inserted] = stack_of_frames.try_emplace(path, profile.stacks.size());
    if (inserted) profile.stacks.push_back({path, 0, 0});
    profile.stacks[it->second].value += values.by_stack[stack];
    profile.stacks[it->second].samples += values.samples_by_stack[stack];
  }
  return profile;
}

}  // namespace stackscope::analysis

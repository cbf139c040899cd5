// The events of a scope summed per distinct call stack, each frame named as every view names
// it: what the exports (collapsed stacks, pprof, speedscope) and the flame graph are written
// over, so that each of them is only a serialisation of one model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

// What a frame is, for colours and filters. The format records no frame type (README, "Frame
// kinds"): Java frames have a class; native functions of mixed mode have none and a module,
// "[kernel]" for the kernel's; bracketed names without a class are the agent's pseudo-frames
// ([stub] …, [truncated]).
enum class ProfileFrameKind : uint8_t { Java, Jdk, Native, Kernel, Other };
const char* profileFrameKindName(ProfileFrameKind kind);  // "java", "jdk", "native", "kernel", "other"

struct ProfileFrame {
  std::string name;    // the method's display name (MethodNames), or "name:line" with lines
  std::string file;    // Java source file, or the native function's module; may be empty
  uint32_t line = 0;   // with lines; 0 = unknown
  ProfileFrameKind kind = ProfileFrameKind::Other;
  // A Java frame's library: its class's module ("java.base") or code source path (a jar or
  // class directory), "" when the recording does not say.
  std::string library = {};
  // With threads merged: how many starters the frame's thread has (0 = a thread no recorded
  // thread started, and the frames of every profile that does not merge).
  uint32_t thread_level = 0;
};

struct ProfileStack {
  std::vector<uint32_t> frames;  // indexes into StackProfile::frames, OUTERMOST first
  uint64_t value = 0;            // in the scope's metric
  uint64_t samples = 0;          // the events' weight
};

struct StackProfile {
  std::vector<ProfileFrame> frames;  // distinct frames, in the order first met
  std::vector<ProfileStack> stacks;  // distinct stacks of frames with events, in the order first met
  ViewTotals totals;                 // of the scope, including events without frames
};

// `lines`: one frame per method and source line, as report --lines. Events without frames
// (a stack lost by the file) are in the totals but in no stack. `merge_threads`: the stacks of
// a thread another one started hang below the call that started it (ThreadInfo::parent), after
// a "[thread NAME]" frame; its frames are apart from its starter's (thread_level), so a method
// both ran is not taken for recursion.
StackProfile stackProfile(const Recording& recording, const EventScope& scope, bool lines, bool merge_threads = false);

}  // namespace stackscope::analysis

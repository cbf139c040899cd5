// A thread's Java stack as the traces record it (innermost frame first, at most kMaxFrames):
// for callbacks, wrapped natives and the agent's own threads, never for signal handlers
// (stack_capture.h is theirs).
#pragma once

#include <jvmti.h>

#include <cstring>
#include <vector>

#include "agent/sample_slot.h"
#include "agent/stack_capture.h"

namespace stackscope::agent {

// `thread` nullptr: the calling thread. Fills `out` (room for kMaxFrames) and returns the
// count, 0 when the VM cannot give the stack.
// The VM writes its frames into `out` itself, each then turned into ours in place (the two
// are the same size): one buffer on the stack of a callback that may run for a
// StackOverflowError, not two.
inline size_t jvmtiStackInto(jvmtiEnv* jvmti, jthread thread, RawFrame* out) {
  static_assert(sizeof(jvmtiFrameInfo) == sizeof(RawFrame));
  auto* bytes = reinterpret_cast<unsigned char*>(out);
  jint count = 0;
  if (jvmti->GetStackTrace(thread, 0, kMaxFrames, reinterpret_cast<jvmtiFrameInfo*>(bytes), &count) != JVMTI_ERROR_NONE) {
    count = 0;
  }
  for (jint i = 0; i < count; ++i) {
    jvmtiFrameInfo frame;
    std::memcpy(&frame, bytes + i * sizeof frame, sizeof frame);
    // GetStackTrace's location is the bytecode index for Java frames, -1 for native ones.
    const RawFrame ours{static_cast<int32_t>(frame.location), frame.method};
    std::memcpy(bytes + i * sizeof ours, &ours, sizeof ours);
  }
  return static_cast<size_t>(count);
}

inline std::vector<RawFrame> jvmtiStack(jvmtiEnv* jvmti, jthread thread) {
  RawFrame frames[kMaxFrames];
  return std::vector<RawFrame>(frames, frames + jvmtiStackInto(jvmti, thread, frames));
}

// The calling thread's stack, in a wrapped JNI native (throwable_hook.h, park_hook.h) or the
// MonitorWaited callback (lock_trace.h), into `out` (room for kMaxFrames): AsyncGetCallTrace
// from its last Java frame, several times cheaper than GetStackTrace's walk; GetStackTrace
// when that walk fails. It fails (-4) when the last Java frame is a runtime stub's: HotSpot
// installs C2's stubs "never safe for profile stackwalking", and AsyncGetCallTrace does not
// step over one to its caller. A compiled monitor enter waits in such a stub
// (complete_monitor_locking_C): 98 % of LockContention's MonitorContendedEntered callbacks on
// HotSpot 17 and 25, so those use jvmtiStack directly.
inline size_t callingThreadStackInto(jvmtiEnv* jvmti, JNIEnv* jni, RawFrame* out) {
  const int count = walkThreadInNative(jni, out, kMaxFrames);
  return count > 0 ? static_cast<size_t>(count) : jvmtiStackInto(jvmti, nullptr, out);
}

inline std::vector<RawFrame> callingThreadStack(jvmtiEnv* jvmti, JNIEnv* jni) {
  RawFrame frames[kMaxFrames];
  return std::vector<RawFrame>(frames, frames + callingThreadStackInto(jvmti, jni, frames));
}

}  // namespace stackscope::agent

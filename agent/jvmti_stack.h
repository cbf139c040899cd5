// A thread's Java stack as the traces record it (innermost frame first, at most kMaxFrames):
// for callbacks, wrapped natives and the agent's own threads, never for signal handlers
// (stack_capture.h is theirs).
#pragma once

#include <jvmti.h>

#include <vector>

#include "agent/sample_slot.h"
#include "agent/stack_capture.h"

namespace stackscope::agent {

// `thread` nullptr: the calling thread. Empty when the VM cannot give the stack.
inline std::vector<RawFrame> jvmtiStack(jvmtiEnv* jvmti, jthread thread) {
  jvmtiFrameInfo frames[kMaxFrames];
  jint count = 0;
  if (jvmti->GetStackTrace(thread, 0, kMaxFrames, frames, &count) != JVMTI_ERROR_NONE) count = 0;
  std::vector<RawFrame> out(static_cast<size_t>(count));
  // GetStackTrace's location is the bytecode index for Java frames, -1 for native ones.
  for (jint i = 0; i < count; ++i) out[i] = {static_cast<int32_t>(frames[i].location), frames[i].method};
  return out;
}

// The calling thread's stack, in a wrapped JNI native (throwable_hook.h, park_hook.h):
// AsyncGetCallTrace from its last Java frame, several times cheaper than GetStackTrace's
// walk; GetStackTrace when that walk fails. Not for JVMTI callbacks from monitor events:
// there AsyncGetCallTrace finds no Java frame to start from (-4 on HotSpot 17 and 25, checked
// on LockContention), so they use jvmtiStack.
inline std::vector<RawFrame> callingThreadStack(jvmtiEnv* jvmti, JNIEnv* jni) {
  RawFrame frames[kMaxFrames];
  const int count = walkThreadInNative(jni, frames, kMaxFrames);
  if (count <= 0) return jvmtiStack(jvmti, nullptr);
  return std::vector<RawFrame>(frames, frames + count);
}

}  // namespace stackscope::agent

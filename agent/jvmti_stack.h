// A thread's Java stack through JVMTI's GetStackTrace, as the traces record it (innermost
// frame first, at most kMaxFrames): for callbacks and the agent's own threads, never for
// signal handlers (stack_capture.h is theirs).
#pragma once

#include <jvmti.h>

#include <vector>

#include "agent/sample_slot.h"

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

}  // namespace stackscope::agent

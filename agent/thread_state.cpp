#include "agent/thread_state.h"

#include <jvmti.h>

namespace stackscope::agent {

format::ThreadState threadStateFromJvmti(int32_t bits) {
  using format::ThreadState;
  // Order matters: a sleeping thread also has WAITING and WAITING_WITH_TIMEOUT set, and a
  // thread in native code is also RUNNABLE.
  if (bits & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) return ThreadState::Blocked;
  if (bits & JVMTI_THREAD_STATE_SLEEPING) return ThreadState::Sleeping;
  if (bits & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) return ThreadState::TimedWaiting;
  if (bits & JVMTI_THREAD_STATE_WAITING_INDEFINITELY) return ThreadState::Waiting;
  if (bits & JVMTI_THREAD_STATE_IN_NATIVE) return ThreadState::Native;
  return ThreadState::Running;
}

}  // namespace stackscope::agent

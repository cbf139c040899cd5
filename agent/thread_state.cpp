#include "agent/thread_state.h"

#include <jvmti.h>

namespace stackscope::agent {

bool needsSchedulerState(int32_t bits) {
  constexpr int32_t kNotPlainRunnable = JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER | JVMTI_THREAD_STATE_WAITING |
                                        JVMTI_THREAD_STATE_IN_NATIVE;
  return (bits & kNotPlainRunnable) == 0;
}

format::ThreadState threadStateFromJvmti(int32_t bits, char os_state) {
  using format::ThreadState;
  // Order matters: a sleeping thread also has WAITING and WAITING_WITH_TIMEOUT set, a parked
  // one WAITING and one of the two WAITING_*, and a thread in native code is also RUNNABLE.
  if (bits & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) return ThreadState::Blocked;
  if (bits & JVMTI_THREAD_STATE_SLEEPING) return ThreadState::Sleeping;
  if (bits & JVMTI_THREAD_STATE_PARKED) return ThreadState::Parked;
  if (bits & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT) return ThreadState::TimedWaiting;
  if (bits & JVMTI_THREAD_STATE_WAITING_INDEFINITELY) return ThreadState::Waiting;
  if (bits & JVMTI_THREAD_STATE_IN_NATIVE) return ThreadState::Native;
  // Runnable for the JVM. 'R' is on a CPU or waiting for one; every other letter (S, D, T,
  // ...) is a thread the kernel will not run now.
  if (os_state != 0 && os_state != 'R') return ThreadState::Idle;
  return ThreadState::Running;
}

}  // namespace stackscope::agent

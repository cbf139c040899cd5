// A thread's state for wall mode: what JVMTI says, corrected by what the kernel says.
//
// JVMTI calls a thread RUNNABLE whenever it is not in a Java-level wait: a thread asleep on
// a JVM-internal lock (Reference Handler in waitForReferencePendingList, DestroyJavaVM
// waiting for the last thread, a thread stopped at a safepoint) reads RUNNABLE too. The
// kernel's scheduler state (proc_task.h) tells whether it can run.
#pragma once

#include <cstdint>

#include "format/records.h"

namespace stackscope::agent {

// `bits` as returned by JVMTI GetThreadState; `os_state` the scheduler state letter, 0 when
// unknown (then a RUNNABLE thread counts as running).
format::ThreadState threadStateFromJvmti(int32_t bits, char os_state = 0);

// Whether JVMTI's state alone leaves the thread runnable in Java code, the only case the
// kernel's state can change (so the only one that pays for reading it).
bool needsSchedulerState(int32_t bits);

}  // namespace stackscope::agent

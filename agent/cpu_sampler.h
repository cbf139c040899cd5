// cpu mode: one CPU-time timer per Java thread, signalling that very thread with SIGPROF
// each time it has used `interval` of CPU. Samples are thus proportional to CPU time, and the
// rate is not capped by the kernel tick as setitimer's is.
#pragma once

#include <cstdint>

#include "agent/thread_registry.h"

namespace stackscope::agent {

// Creates and arms the calling thread's timer (the slot must belong to the calling thread:
// the timer measures the CPU clock of the thread that creates it).
bool startThreadTimer(ThreadSlot& slot, int64_t interval_ns);
// Deletes the slot's timer if it has one; any thread may call it (registry mutex held).
void stopThreadTimer(ThreadSlot& slot);

}  // namespace stackscope::agent

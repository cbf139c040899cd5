// The slot of the thread a JVMTI callback or a JNI native runs on: what the traces (lock,
// alloc, exception, virtual threads, thread parents) and the Java API attribute their events to.
//
// A thread the agent saw start holds its own in thread-local storage (thread_registry.h:
// currentThreadSlot). A thread that ran before an attach has none: no agent code ran on it to
// set it. It is found by its OS thread id instead, adopted by the session (cpu mode,
// native_threads.h) or registered as foreign (wall mode, thread_registry.h). Without that
// fall-back an attached lock trace recorded no wait of those threads (every server's pool) and
// their sampled allocations had no thread.
#pragma once

#include "agent/native_threads.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

// Per session, before its events are enabled; the pointers are the session's and are used only
// under a SessionUse (session_gate.h). `by_tid` may be null (no thread is adopted that way).
void setCallingThreadLookup(const NativeThreads* by_tid, ThreadRegistry* registry);

// The calling thread's slot, or null (an agent thread, one the tracker has not met). Not for
// signal handlers: a thread without its own slot costs a system call and a table scan, and in
// wall mode the registry's mutex.
ThreadSlot* callingThreadSlot();

}  // namespace stackscope::agent

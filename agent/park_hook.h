// LockSupport.park for the lock trace. JVMTI has no park event, so the agent wraps the native
// behind every park, jdk.internal.misc.Unsafe.park(boolean, long) (through NativeMethodBind,
// native_bind.h): the wrapper notes the wait's start in the thread's slot, calls the JVM's own
// function, and hands the wait to the lock trace (lock_trace.h), which keeps it if it lasted
// the threshold. The blocker is still set when the wrapper runs (LockSupport clears it after
// Unsafe.park returns).
//
// Unsafe.park is an intrinsic candidate, but neither HotSpot 17 nor 25 compiles it inline:
// -XX:+PrintInlining on a hot park loop shows C2 calling it as a "native method" (17.0.15)
// and "failed to inline: native method" (25), so every park goes through the native.
#pragma once

#include <jni.h>

namespace stackscope::agent {

class LockTrace;

// Parks are handed to `trace` from now on (set before events are enabled; null at a
// session's end, before its gate closes).
void setParkTrace(LockTrace* trace);

// The JVM's Unsafe_Park at `original` is being bound: returns the wrapper to bind instead.
// Null forgets it again: the wrapper was not bound after all (bound_natives.h).
void* wrapPark(void* original);
bool isParkWrapper(const void* address);

// Whether Unsafe.park was wrapped (by VMInit it should be, or once bound again after an
// attach; if not, parks are not traced).
bool parkHooked();

}  // namespace stackscope::agent

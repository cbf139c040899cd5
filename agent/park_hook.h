// LockSupport.park for the lock trace. JVMTI has no park event, so the agent wraps the native
// behind every park, jdk.internal.misc.Unsafe.park(boolean, long): the wrapper notes the
// wait's start in the thread's slot, calls the JVM's own function, and hands the wait to the
// lock trace (lock_trace.h), which keeps it if it lasted the threshold. The blocker is still
// set when the wrapper runs (LockSupport clears it after Unsafe.park returns).
//
// How the wrapper gets in: the NativeMethodBind event, whose callback may replace the address
// a native method is bound to. Unsafe registers its natives (RegisterNatives, which posts the
// event) while the JVM initializes java.lang, before VMStart; a callback that early can name
// the method only in the start phase, so the agent asks for can_generate_early_vmstart, which
// starts that phase for it before java.lang is initialized. Re-registering the native later
// instead (RegisterNatives from the agent) would make HotSpot log a warning on the program's
// stdout. The callback compares the name first: binds are rare (once per native method).
//
// Unsafe.park is an intrinsic candidate, but neither HotSpot 17 nor 25 compiles it inline:
// -XX:+PrintInlining on a hot park loop shows C2 calling it as a "native method" (17.0.15)
// and "failed to inline: native method" (25), so every park goes through the native.
#pragma once

#include <jni.h>
#include <jvmti.h>

namespace stackscope::agent {

class LockTrace;

// Parks are handed to `trace` from now on (set before events are enabled, once).
void setParkTrace(LockTrace* trace);

// The JVMTI NativeMethodBind callback (enabled only with the lock trace).
void JNICALL onNativeMethodBind(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jmethodID method, void* address,
                                void** new_address);

// Whether Unsafe.park was wrapped (by VMInit it should be; if not, parks are not traced).
bool parkHooked();

}  // namespace stackscope::agent

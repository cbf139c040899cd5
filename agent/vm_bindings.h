// Where AsyncGetCallTrace gives up, the stack walk goes on with the VM's own structures: from
// a compiled method's prologue or epilogue with the code cache's layout (compiled_code.h),
// from a thread in the VM with its frame anchor (vm_thread_anchor.h); the threads'
// allocation counters (thread_metrics.h). They describe the JVM, not a recording: bound at
// the first session's begin and kept for the process (a late signal may read them; sessions
// after the first reuse them).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>

#include "agent/options.h"

namespace stackscope::agent {

// Binds the structures the first time (on a Java thread: `jni` is the calling thread's) and
// sets the per-thread metrics the samples will carry: those `options` ask for that this VM
// can give, which it returns. Before the threads register, which read their counters' base.
uint32_t bindVmOnce(const Options& options, jvmtiEnv* jvmti, JNIEnv* jni);

}  // namespace stackscope::agent

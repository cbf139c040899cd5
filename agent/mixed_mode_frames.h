// Mixed mode's native frames in a Java thread's sample: the kernel's and the native code's the
// thread was interrupted in, on top of its Java frames; those between two Java regions
// (native_between.h); those below its outermost Java frame (native_below.h). Kept apart from
// the SIGPROF handler (stack_capture.cpp) that runs them and from the Java walks
// (java_stack_walk.h): what is found here only adds frames around what those gave. Everything
// here runs in that handler, under its rules (the top of stack_capture.cpp). x86-64 only.
#pragma once

#include <jni.h>

#include "agent/sample_slot.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

#if defined(__x86_64__)
// The kernel functions the thread was in (a system call, a page fault), innermost first, from
// its timer's sample where the kernel allows it (cpu_sampler.h). The count written.
jint kernelFrames(ThreadSlot& thread, RawFrame* frames);

// The native frames the thread was interrupted in (JVM runtime, JNI libraries, libc),
// innermost first, up to the first frame in the code cache, or for a thread with no Java
// frame (the JVM's own) down to its first function (clone3) when the chain holds. 0 when the
// pc is in Java code, or the thread's stack is not known yet.
jint walkNative(ThreadSlot& thread, RawFrame* frames, jint depth, void* ucontext);

// frames[native, native + java) are the Java frames; the native frames between Java regions
// and below the outermost Java frame are put in. The new number of frames after `native`.
jint withNativeFramesAround(ThreadSlot& thread, JNIEnv* env, RawFrame* frames, jint native, jint java, void* ucontext);
#endif

}  // namespace stackscope::agent

// The agent's wrappers of JVM natives (park_hook.h for the lock trace, throwable_hook.h for
// the exception trace, thread_parents.h for which thread started which) get in through one JVMTI NativeMethodBind callback, whose callback may
// replace the address a native method is bound to.
//
// Some natives are bound before the ordinary start phase (Unsafe registers its natives while
// the JVM initializes java.lang); a callback that early can name the method only in the start
// phase, so the agent asks for can_generate_early_vmstart with the lock trace.
// Throwable.fillInStackTrace(int) is bound when first called, in whatever phase that is; it is
// Thread.start0 is registered with the others of Thread while the JVM starts; it is known by
// the address bound too, HotSpot's exported JVM_StartThread. Throwable.fillInStackTrace is
// known by the address bound, the JDK's exported JNI function
// Java_java_lang_Throwable_fillInStackTrace (dladdr), which needs no JVMTI call. Binds are
// rare (once per native method), so the callback may name each method it is offered. After an
// attach these natives were bound long before: bound_natives.h binds them again.
#pragma once

#include <jni.h>
#include <jvmti.h>

namespace stackscope::agent {

// Which natives to wrap, set at load before the event is enabled (each only with its trace).
struct WrappedNatives {
  bool park = false;               // jdk.internal.misc.Unsafe.park(ZJ)V
  bool fill_in_stack_trace = false;  // java.lang.Throwable.fillInStackTrace(I)
  bool thread_start = false;       // java.lang.Thread.start0()V (thread_parents.h)
  // Mixed mode: a native being bound may come from a library loaded just now, whose unwinding
  // tables the native walk needs from its first call (unwind_modules.h), not from the writer's
  // next look: a JNI library without frame pointers lost its frames between Java frames for
  // its first 300 ms under load (a CI run).
  bool unwind_modules = false;
};
void setWrappedNatives(WrappedNatives natives);

// The JVMTI NativeMethodBind callback (enabled only when a native is to be wrapped).
void JNICALL onNativeMethodBind(jvmtiEnv* jvmti, JNIEnv* jni, jthread thread, jmethodID method, void* address,
                                void** new_address);

}  // namespace stackscope::agent

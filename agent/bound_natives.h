// After an attach, the natives the agent wraps (native_bind.h: Unsafe.park for the lock trace,
// Throwable.fillInStackTrace for the exception trace, Thread.start0 for which thread started
// which) were bound long before the agent came, and NativeMethodBind never offers them. The
// agent binds them again to its wrappers with JNI's RegisterNatives, which HotSpot allows at any
// time: it makes a compiled caller of the old binding not entrant, so every later call goes
// through the wrapper, which calls the function the JVM had bound.
//
// HotSpot logs a warning on the program's stdout when a JDK class's native is registered by
// code of another class loader, or by no Java code at all, as from an agent's thread. So the
// registrations run under a Java frame of a class the agent defines in the boot loader, the JDK
// classes' own (NativeRebinder, its class file built in bound_natives.cpp): the program's output
// stays its own.
#pragma once

#include <jni.h>

#include "agent/native_bind.h"

namespace stackscope::agent {

// Wraps each native of `wanted` that is not wrapped yet, finding the function the JVM bound by
// its symbol (an exported one, or HotSpot's own Unsafe_Park in libjvm's .symtab:
// local_functions.h). One that cannot be found or bound stays as it was: its trace says so
// (park_hook.h, throwable_hook.h).
void wrapBoundNatives(JNIEnv* jni, const WrappedNatives& wanted);

// The JDK's exported Java_java_lang_Throwable_fillInStackTrace, in libjava.so (loaded by the
// JVM without RTLD_GLOBAL, so looked up in its own handle); null before libjava is loaded.
void* fillInStackTraceFunction();

}  // namespace stackscope::agent

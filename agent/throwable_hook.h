// Exception creation for the exception trace (exception_trace.h). Every Throwable whose stack
// trace is written (its constructor with writableStackTrace true, the default) calls the
// native java.lang.Throwable.fillInStackTrace(int) once; the agent wraps it (through
// NativeMethodBind, native_bind.h, or after an attach bound_natives.h). The wrapper hands the new exception to the trace, which
// takes its class and the creating thread's stack, then calls the JVM's own function.
//
// Unlike JVMTI's Exception event this needs no capability that changes compiled code: a throw
// stays a compiled throw, and a program pays only per exception it creates.
#pragma once

#include <jni.h>

namespace stackscope::agent {

class ExceptionTrace;

// Creations are handed to `trace` from now on (set at VMInit, once).
void setFillInStackTraceTrace(ExceptionTrace* trace);

// The JVM's Throwable.fillInStackTrace(int) at `original` is being bound: returns the
// wrapper to bind instead. Null forgets it again: the wrapper was not bound after all
// (bound_natives.h).
void* wrapFillInStackTrace(void* original);
bool isFillInStackTraceWrapper(const void* address);

// Whether Throwable.fillInStackTrace(int) was wrapped (at its first call, or bound again
// after an attach).
bool fillInStackTraceHooked();

}  // namespace stackscope::agent

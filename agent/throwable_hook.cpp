#include "agent/throwable_hook.h"

#include <atomic>

#include "agent/exception_trace.h"
#include "agent/session_gate.h"

namespace stackscope::agent {

namespace {

using FillInStackTraceFunction = jobject(JNICALL*)(JNIEnv*, jobject, jint);

std::atomic<ExceptionTrace*> g_trace{nullptr};
// The JDK's Java_java_lang_Throwable_fillInStackTrace; set before the wrapper is bound.
std::atomic<FillInStackTraceFunction> g_original{nullptr};

// Runs on the creating thread, in native code, as the JDK's function would: JNI and JVMTI
// calls are allowed.
jobject JNICALL fillInStackTraceWrapper(JNIEnv* jni, jobject throwable, jint dummy) {
  {
    SessionUse use;  // the trace is a session's (session_gate.h)
    ExceptionTrace* trace = use ? g_trace.load(std::memory_order_acquire) : nullptr;
    if (trace) trace->onCreated(jni, throwable);
  }
  return g_original.load(std::memory_order_acquire)(jni, throwable, dummy);
}

}  // namespace

void setFillInStackTraceTrace(ExceptionTrace* trace) { g_trace.store(trace, std::memory_order_release); }

void* wrapFillInStackTrace(void* original) {
  g_original.store(reinterpret_cast<FillInStackTraceFunction>(original), std::memory_order_release);
  return reinterpret_cast<void*>(&fillInStackTraceWrapper);
}

bool isFillInStackTraceWrapper(const void* address) {
  return address == reinterpret_cast<const void*>(&fillInStackTraceWrapper);
}

bool fillInStackTraceHooked() { return g_original.load(std::memory_order_acquire) != nullptr; }

}  // namespace stackscope::agent

#include "agent/park_hook.h"

#include <atomic>

#include "agent/lock_trace.h"
#include "agent/session_gate.h"

namespace stackscope::agent {

namespace {

using ParkFunction = void(JNICALL*)(JNIEnv*, jobject, jboolean, jlong);

std::atomic<LockTrace*> g_trace{nullptr};
// The JVM's Unsafe_Park; set before the wrapper is bound, so the wrapper always finds it.
std::atomic<ParkFunction> g_original{nullptr};

// Runs on the parking thread, in native code, as the JVM's function would: JNI and JVMTI
// calls are allowed, and the agent holds no lock around the park.
void JNICALL parkWrapper(JNIEnv* jni, jobject unsafe, jboolean absolute, jlong time) {
  const ParkFunction original = g_original.load(std::memory_order_acquire);
  // The session may end during the park: the trace is looked up again after it, and used
  // only inside the gate each time (session_gate.h).
  {
    SessionUse use;
    LockTrace* trace = use ? g_trace.load(std::memory_order_acquire) : nullptr;
    if (trace) trace->begin(jni, WaitSource::Park);
  }
  original(jni, unsafe, absolute, time);
  SessionUse use;
  LockTrace* trace = use ? g_trace.load(std::memory_order_acquire) : nullptr;
  if (trace) trace->end(jni, nullptr);
}

}  // namespace

void setParkTrace(LockTrace* trace) { g_trace.store(trace, std::memory_order_release); }

void* wrapPark(void* original) {
  g_original.store(reinterpret_cast<ParkFunction>(original), std::memory_order_release);
  return reinterpret_cast<void*>(&parkWrapper);
}

bool isParkWrapper(const void* address) { return address == reinterpret_cast<const void*>(&parkWrapper); }

bool parkHooked() { return g_original.load(std::memory_order_acquire) != nullptr; }

}  // namespace stackscope::agent

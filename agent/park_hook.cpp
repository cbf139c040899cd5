#include "agent/park_hook.h"

#include <atomic>
#include <cstring>

#include "agent/lock_trace.h"

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
  LockTrace* trace = g_trace.load(std::memory_order_acquire);
  if (trace) trace->begin(WaitSource::Park);
  original(jni, unsafe, absolute, time);
  if (trace) trace->end(jni, nullptr);
}

// Whether `method` is jdk.internal.misc.Unsafe.park(ZJ)V.
bool isUnsafePark(jvmtiEnv* jvmti, jmethodID method) {
  char* name = nullptr;
  char* signature = nullptr;
  if (jvmti->GetMethodName(method, &name, &signature, nullptr) != JVMTI_ERROR_NONE) return false;
  bool park = name && signature && std::strcmp(name, "park") == 0 && std::strcmp(signature, "(ZJ)V") == 0;
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(name));
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  if (!park) return false;
  jclass holder = nullptr;
  char* class_signature = nullptr;
  park = jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE &&
         jvmti->GetClassSignature(holder, &class_signature, nullptr) == JVMTI_ERROR_NONE && class_signature &&
         std::strcmp(class_signature, "Ljdk/internal/misc/Unsafe;") == 0;
  if (class_signature) jvmti->Deallocate(reinterpret_cast<unsigned char*>(class_signature));
  return park;  // `holder` is a local reference of the callback's frame
}

}  // namespace

void setParkTrace(LockTrace* trace) { g_trace.store(trace, std::memory_order_release); }

void JNICALL onNativeMethodBind(jvmtiEnv* jvmti, JNIEnv*, jthread, jmethodID method, void* address,
                                void** new_address) {
  if (address == reinterpret_cast<void*>(&parkWrapper) || !isUnsafePark(jvmti, method)) return;
  g_original.store(reinterpret_cast<ParkFunction>(address), std::memory_order_release);
  *new_address = reinterpret_cast<void*>(&parkWrapper);
}

bool parkHooked() { return g_original.load(std::memory_order_acquire) != nullptr; }

}  // namespace stackscope::agent

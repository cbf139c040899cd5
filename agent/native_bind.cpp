#include "agent/native_bind.h"

#include <atomic>
#include <cstring>

#include "agent/bound_natives.h"
#include "agent/jvmti_buffer.h"
#include "agent/park_hook.h"
#include "agent/thread_parents.h"
#include "agent/throwable_hook.h"
#include "agent/vm_structs.h"
#include "native/unwind_modules.h"

namespace stackscope::agent {

namespace {

WrappedNatives g_wanted;  // written once at load, before the event can come

bool is(const JvmtiBuffer<char>& text, const char* expected) { return text.ptr && std::strcmp(text.ptr, expected) == 0; }

// Whether `method` is CLASS_SIGNATURE.NAME SIGNATURE.
bool isMethod(jvmtiEnv* jvmti, jmethodID method, const char* class_signature, const char* name, const char* signature) {
  JvmtiBuffer<char> method_name(jvmti), method_signature(jvmti), holder_signature(jvmti);
  if (jvmti->GetMethodName(method, &method_name.ptr, &method_signature.ptr, nullptr) != JVMTI_ERROR_NONE ||
      !is(method_name, name) || !is(method_signature, signature))
    return false;
  jclass holder = nullptr;  // a local reference of the callback's frame
  return jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE &&
         jvmti->GetClassSignature(holder, &holder_signature.ptr, nullptr) == JVMTI_ERROR_NONE &&
         is(holder_signature, class_signature);
}

// The exported JDK natives wrapped by address, each found once by its name (dlsym is a hash
// look-up: a dladdr for every native bound scanned libjvm's symbols, 0.6 ms of a JVM's start).
// No JVMTI call, so it works in any phase; null until its library is loaded.
void* cachedFunction(std::atomic<void*>& cache, void* (*find)()) {
  void* function = cache.load(std::memory_order_acquire);
  if (!function) {
    function = find();
    cache.store(function, std::memory_order_release);
  }
  return function;
}
bool isStartThread(void* address) {
  static std::atomic<void*> cache{nullptr};
  return address == cachedFunction(cache, [] { return lookupJvmSymbol("JVM_StartThread"); });
}
bool isFillInStackTrace(void* address) {
  static std::atomic<void*> cache{nullptr};
  return address == cachedFunction(cache, fillInStackTraceFunction);
}

}  // namespace

void setWrappedNatives(WrappedNatives natives) { g_wanted = natives; }

void JNICALL onNativeMethodBind(jvmtiEnv* jvmti, JNIEnv*, jthread, jmethodID method, void* address,
                                void** new_address) {
  if (g_wanted.unwind_modules) native::refreshLoadedUnwindModules();
  if (isParkWrapper(address) || isFillInStackTraceWrapper(address) || isThreadStartWrapper(address))
    return;  // bound again to what we gave
  if (g_wanted.park && isMethod(jvmti, method, "Ljdk/internal/misc/Unsafe;", "park", "(ZJ)V")) {
    *new_address = wrapPark(address);
  } else if (g_wanted.fill_in_stack_trace && isFillInStackTrace(address)) {
    *new_address = wrapFillInStackTrace(address);
  } else if (g_wanted.thread_start && isStartThread(address)) {
    *new_address = wrapThreadStart(address);
  }
}

}  // namespace stackscope::agent

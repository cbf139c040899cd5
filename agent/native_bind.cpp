#include "agent/native_bind.h"

#include <dlfcn.h>

#include <cstring>

#include "agent/park_hook.h"
#include "agent/thread_parents.h"
#include "agent/throwable_hook.h"
#include "native/unwind_modules.h"

namespace stackscope::agent {

namespace {

WrappedNatives g_wanted;  // written once at load, before the event can come

// Deallocates JVMTI's strings when the callback returns.
struct JvmtiString {
  jvmtiEnv* jvmti;
  char* text = nullptr;
  explicit JvmtiString(jvmtiEnv* env) : jvmti(env) {}
  ~JvmtiString() {
    if (text) jvmti->Deallocate(reinterpret_cast<unsigned char*>(text));
  }
  bool is(const char* expected) const { return text && std::strcmp(text, expected) == 0; }
};

// Whether `method` is CLASS_SIGNATURE.NAME SIGNATURE.
bool isMethod(jvmtiEnv* jvmti, jmethodID method, const char* class_signature, const char* name, const char* signature) {
  JvmtiString method_name(jvmti), method_signature(jvmti), holder_signature(jvmti);
  if (jvmti->GetMethodName(method, &method_name.text, &method_signature.text, nullptr) != JVMTI_ERROR_NONE ||
      !method_name.is(name) || !method_signature.is(signature))
    return false;
  jclass holder = nullptr;  // a local reference of the callback's frame
  return jvmti->GetMethodDeclaringClass(method, &holder) == JVMTI_ERROR_NONE &&
         jvmti->GetClassSignature(holder, &holder_signature.text, nullptr) == JVMTI_ERROR_NONE &&
         holder_signature.is(class_signature);
}

// Whether `address` is the exported function `symbol` (a JDK native found by its JNI name).
// Needs no JVMTI call, so it works in any phase.
bool isFunction(void* address, const char* symbol) {
  Dl_info info{};
  return dladdr(address, &info) != 0 && info.dli_saddr == address && info.dli_sname &&
         std::strcmp(info.dli_sname, symbol) == 0;
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
  } else if (g_wanted.fill_in_stack_trace && isFunction(address, "Java_java_lang_Throwable_fillInStackTrace")) {
    *new_address = wrapFillInStackTrace(address);
  } else if (g_wanted.thread_start && isFunction(address, "JVM_StartThread")) {
    *new_address = wrapThreadStart(address);
  }
}

}  // namespace stackscope::agent

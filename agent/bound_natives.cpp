#include "agent/bound_natives.h"

#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

#include "agent/local_functions.h"
#include "agent/park_hook.h"
#include "agent/thread_parents.h"
#include "agent/throwable_hook.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

namespace {

constexpr const char* kRebinderName = "io/stackscope/agent/NativeRebinder";

// A native to bind to the agent's wrapper, from NativeRebinder.run's frame. `wrap` is the
// wrapper's (park_hook.h ...): given the JVM's function it returns the wrapper, given null it
// forgets the function again (the wrapper was not bound after all).
struct Rebinding {
  const char* class_name;
  const char* method;
  const char* signature;
  void* (*wrap)(void* original);
  void* original;
  bool bound = false;
};

std::mutex g_rebinding_mutex;          // one rebinding at a time: the list below is its
std::vector<Rebinding> g_rebindings;   // what NativeRebinder.rebind binds

// NativeRebinder.rebind: runs under NativeRebinder.run's Java frame, a boot-loader class's, so
// HotSpot takes the registrations as the JDK's own. A registration that fails leaves its native
// as it was.
void JNICALL rebindNatives(JNIEnv* jni, jclass) {
  for (Rebinding& rebinding : g_rebindings) {
    jclass holder = jni->FindClass(rebinding.class_name);
    if (!holder) {
      jni->ExceptionClear();
      continue;
    }
    // jni.h's JNINativeMethod has non-const char pointers; RegisterNatives only reads them.
    JNINativeMethod method{const_cast<char*>(rebinding.method), const_cast<char*>(rebinding.signature),
                           rebinding.wrap(rebinding.original)};
    rebinding.bound = jni->RegisterNatives(holder, &method, 1) == JNI_OK;
    if (!rebinding.bound) jni->ExceptionClear();
    jni->DeleteLocalRef(holder);
  }
}

// The class file of
//   final class io.stackscope.agent.NativeRebinder {
//     private static native void rebind();
//     static void run() { rebind(); }
//   }
// as version 52 (Java 8), whose straight-line code needs no stack map frames.
std::vector<jbyte> rebinderClassFile() {
  std::vector<jbyte> bytes;
  auto u1 = [&](unsigned v) { bytes.push_back(static_cast<jbyte>(v & 0xff)); };
  auto u2 = [&](unsigned v) { u1(v >> 8), u1(v); };
  auto utf8 = [&](std::string_view text) {
    u1(1), u2(static_cast<unsigned>(text.size()));
    for (char c : text) u1(static_cast<unsigned char>(c));
  };
  u2(0xCAFE), u2(0xBABE), u2(0), u2(52);  // magic, minor and major version
  u2(11);                                 // constant pool entries 1..10:
  utf8(kRebinderName);                    // #1
  u1(7), u2(1);                           // #2 Class #1
  utf8("java/lang/Object");               // #3
  u1(7), u2(3);                           // #4 Class #3
  utf8("rebind");                         // #5
  utf8("()V");                            // #6
  u1(12), u2(5), u2(6);                   // #7 NameAndType rebind ()V
  u1(10), u2(2), u2(7);                   // #8 Methodref NativeRebinder.rebind
  utf8("run");                            // #9
  utf8("Code");                           // #10
  u2(0x0030), u2(2), u2(4);               // ACC_FINAL | ACC_SUPER, this #2, super #4
  u2(0), u2(0), u2(2);                    // no interfaces, no fields, two methods:
  u2(0x010A), u2(5), u2(6), u2(0);        // private static native rebind()V
  u2(0x0008), u2(9), u2(6), u2(1);        // static run()V, with one attribute:
  u2(10), u2(0), u2(16);                  // Code, 16 bytes long (a u4):
  u2(0), u2(0), u2(0), u2(4);             // max stack 0, max locals 0, 4 bytes of code (a u4):
  u1(0xb8), u2(8), u1(0xb1);              // invokestatic #8; return
  u2(0), u2(0);                           // no exception handlers, no attributes
  u2(0);                                  // no class attributes
  return bytes;
}

// NativeRebinder, defined in the boot loader at the first rebinding of the process (an earlier
// session's is found again), with rebind bound to rebindNatives; null if it cannot be.
jclass rebinderClass(JNIEnv* jni) {
  jclass rebinder = jni->FindClass(kRebinderName);
  if (!rebinder) {
    jni->ExceptionClear();
    const std::vector<jbyte> bytes = rebinderClassFile();
    rebinder = jni->DefineClass(kRebinderName, nullptr, bytes.data(), static_cast<jsize>(bytes.size()));
    if (!rebinder) {
      jni->ExceptionClear();
      return nullptr;
    }
  }
  JNINativeMethod rebind{const_cast<char*>("rebind"), const_cast<char*>("()V"), reinterpret_cast<void*>(&rebindNatives)};
  if (jni->RegisterNatives(rebinder, &rebind, 1) != JNI_OK) {
    jni->ExceptionClear();
    jni->DeleteLocalRef(rebinder);
    return nullptr;
  }
  return rebinder;
}

}  // namespace

void* fillInStackTraceFunction() {
  void* libjava = dlopen("libjava.so", RTLD_LAZY | RTLD_NOLOAD);
  if (!libjava) return nullptr;
  void* function = dlsym(libjava, "Java_java_lang_Throwable_fillInStackTrace");
  dlclose(libjava);
  return function;
}

void wrapBoundNatives(JNIEnv* jni, const WrappedNatives& wanted) {
  void* start_thread = lookupJvmSymbol("JVM_StartThread");
  std::vector<Rebinding> rebindings;
  if (wanted.park && !parkHooked()) {
    if (void* park = start_thread ? localFunction(start_thread, "Unsafe_Park") : nullptr)
      rebindings.push_back({"jdk/internal/misc/Unsafe", "park", "(ZJ)V", &wrapPark, park});
  }
  if (wanted.fill_in_stack_trace && !fillInStackTraceHooked()) {
    if (void* fill_in = fillInStackTraceFunction())
      rebindings.push_back({"java/lang/Throwable", "fillInStackTrace", "(I)Ljava/lang/Throwable;",
                            &wrapFillInStackTrace, fill_in});
  }
  if (wanted.thread_start && !threadStartHooked() && start_thread)
    rebindings.push_back({"java/lang/Thread", "start0", "()V", &wrapThreadStart, start_thread});
  if (rebindings.empty()) return;

  std::lock_guard lock(g_rebinding_mutex);
  g_rebindings = std::move(rebindings);
  if (jclass rebinder = rebinderClass(jni)) {
    if (jmethodID run = jni->GetStaticMethodID(rebinder, "run", "()V")) jni->CallStaticVoidMethod(rebinder, run);
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    jni->DeleteLocalRef(rebinder);
  }
  for (const Rebinding& rebinding : g_rebindings) {
    if (!rebinding.bound) rebinding.wrap(nullptr);
  }
  g_rebindings.clear();
}

}  // namespace stackscope::agent

// What the walk of a stack's Java regions (java_regions.h) needs of the VM, from the tables it
// exports (vm_structs.h): the call stub's return address (the pc that ends a Java region),
// the interpreter's code, the layout of entry and interpreted frames and of JavaCallWrapper,
// and each thread's active JNI handle block, which tells cheaply whether a stack has more
// than one Java region.
//
// Every JavaCallWrapper (every call from native code or the VM into Java) installs a handle
// block of its own for the length of the call and puts the one before back when it returns.
// So while a thread's active block is the one seen when its stack had a single region (the
// block of its outermost call), no call into Java is under way above it: the common case
// costs one load. A block seen again after it was freed and reused by an inner call makes
// the stack look single: its samples keep the stack AsyncGetCallTrace gives, without the
// native frames of the middle, never a wrong one.
//
// SIGNAL SAFETY: classify() reads the code cache (compiled_code.h) and constants read at
// bind(); activeHandles() reads the calling thread's JavaThread (alive while it runs).
#pragma once

#include <jni.h>

#include <cstdint>

#include "agent/compiled_code.h"
#include "agent/java_regions.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

class EntryFrames {
 public:
  // Reads the layout (after the VM made its stubs and interpreter: VMInit); `env_offset` is
  // jniEnvOffset's. False when this VM lacks something needed (then nothing is walked).
  bool bind(const VmStructs& vm, const CompiledCode* code, int64_t env_offset);

  const JavaFrameLayout& layout() const { return layout_; }
  uintptr_t callStubReturn() const { return call_stub_return_; }

  // What code pc is in. Async-signal-safe.
  CodeAtPc classify(uintptr_t pc) const;
  // Whether pc is in the interpreter's code (no memory read). Async-signal-safe.
  bool inInterpreter(uintptr_t pc) const { return pc >= interpreter_low_ && pc < interpreter_high_; }
  // Whether pc is in the code cache at all (Java code, stubs, the interpreter). Async-signal-safe.
  bool inCodeCache(uintptr_t pc) const { return code_->contains(pc); }

  // The jmethodID of the compiled method (a native method's wrapper, say) holding pc, or null.
  // Async-signal-safe.
  const void* compiledMethodAt(uintptr_t pc) const;

  // The active JNI handle block of the thread whose JNIEnv this is. Async-signal-safe.
  uintptr_t activeHandles(JNIEnv* env) const {
    return *reinterpret_cast<const volatile uintptr_t*>(reinterpret_cast<uintptr_t>(env) - env_offset_ +
                                                        active_handles_);
  }

 private:
  const CompiledCode* code_ = nullptr;
  JavaFrameLayout layout_;
  uintptr_t call_stub_return_ = 0;
  uintptr_t interpreter_low_ = 0, interpreter_high_ = 0;
  uintptr_t env_offset_ = 0;
  uintptr_t active_handles_ = 0;
};

}  // namespace stackscope::agent

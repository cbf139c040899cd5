// A Java thread that is inside the VM (entering a contended monitor, calling the runtime from
// compiled code) keeps where its Java frames start in its JavaThread's frame
// anchor: the last Java frame's sp, fp and pc. HotSpot leaves the pc out when the code that
// entered the VM did not store it (C2's runtime stubs, the interpreter's calls into the VM)
// and computes it when it first needs to walk the thread: it is the word below the saved sp,
// the return address the call pushed (JavaFrameAnchor::make_walkable). AsyncGetCallTrace
// cannot do that in a signal handler, so it gives up ("not in Java", -3) and a thread
// spinning for a monitor was lost from cpu profiles (13-36 % of a contended workload's
// samples). This does what make_walkable does, on the thread itself, so the walk can start
// from the anchor.
//
// THE ONE WRITE INTO THE VM: the anchor's pc, only when the anchor has an sp and no pc, only
// from the thread's own signal handler, only in state _thread_in_vm or _thread_in_vm_trans
// (leaving the VM, polling for a safepoint on the way: HotSpot 17's samples of an allocation
// in InterpreterRuntime::newarray were caught there), and only when sp - 8 lies in the
// thread's used stack. Neither state is safepoint-safe: no other thread walks the thread or
// touches its anchor until it leaves them, and on the way out (to blocked, at a safepoint)
// the VM's own make_walkable finds the pc set to the value it would have stored.
// The interrupted code either set the anchor completely (the pc is written before the sp) or
// is clearing it (the sp is cleared first, the pc after): the value is never out of date.
//
// A call from compiled code into the VM through one of C2's runtime stubs (entering a
// contended monitor: SharedRuntime::complete_monitor_locking_C) leaves the stub's frame in the
// anchor, and AsyncGetCallTrace cannot step from there to the Java caller: it gives up ("not
// walkable", -4, in the VM; "not walkable Java", -6, while the VM code still runs in state
// _thread_in_Java). A third of a contended lock's samples kept VM frames alone. The stack
// capture steps over the stub itself (compiled_code.h knows its frame size) and walks from the
// caller: through the signal context in the stub's own code, and once it has called out of the
// code cache (into the VM, or still in state _thread_in_Java: C1's exception dispatch) through
// the anchor, which walkWithAnchorAt points at the caller for the length of the walk and then
// puts back exactly as it was (the thread's own handler; in state _thread_in_vm or in Java
// state outside the code cache: neither is safepoint-safe, so no other thread walks the thread
// meanwhile, and the stub resets the whole anchor when the call returns).
//
// SIGNAL SAFETY: makeWalkable, lastJavaFrame and walkWithAnchorAt read the JavaThread of the
// calling thread (alive while it runs) at offsets taken from the VM's tables at bind().
#pragma once

#include <jni.h>

#include <atomic>
#include <cstdint>

#include "agent/stub_unwind.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

// Where a JNIEnv lies within its JavaThread (JNIEnv - JavaThread), learnt from the calling
// thread: `jni` is its and `thread` its java.lang.Thread, whose eetop field holds its
// JavaThread. 0 when it cannot be told. Outside signal handlers.
int64_t jniEnvOffset(JNIEnv* jni, jobject thread);

class VmThreadAnchor {
 public:
  // Reads the layout; `env_offset` is jniEnvOffset's. False when this VM lacks something needed.
  bool bind(const VmStructs& vm, int64_t env_offset);

  // For the thread whose JNIEnv this is, interrupted with stack pointer sp: when it is in
  // the VM (or leaving it) with an anchor whose pc is unknown, stores the pc as HotSpot would
  // and returns true (a walk tried again now starts from its last Java frame).
  // Async-signal-safe.
  bool makeWalkable(JNIEnv* env, uintptr_t sp, const StackBounds& stack) const;

  enum class State { InJava, InVm, InNative, Other };
  // The last Java frame the anchor of the calling thread (interrupted with stack pointer sp)
  // holds, with the pc HotSpot would compute when the anchor lacks it, and the thread's state.
  // False when it has no anchor or is in another state. In native code the anchor is the VM's
  // to read at any time: never to be moved (walkWithAnchorAt). Async-signal-safe.
  bool lastJavaFrame(JNIEnv* env, uintptr_t sp, const StackBounds& stack, WalkRegisters& frame, State& state) const;
  // The last Java frame of the calling thread when it is blocked in the VM (_thread_blocked:
  // spinning or parked for a contended monitor) or on its way between the VM and another
  // state (_thread_blocked_trans, _thread_in_vm_trans). HotSpot completes the anchor before it
  // leaves the VM, and other threads may walk the stack from it meanwhile: it is only ever
  // read, never moved. False in any other state. Async-signal-safe.
  bool blockedJavaFrame(JNIEnv* env, uintptr_t sp, const StackBounds& stack, WalkRegisters& frame) const;

  // For the calling thread in the VM: runs walk() with its anchor set to `frame` (a Java
  // frame: sp, fp, and pc a return address), then restores the anchor's three words as they
  // were. Async-signal-safe when walk() is.
  template <typename Walk>
  void walkWithAnchorAt(JNIEnv* env, const WalkRegisters& frame, Walk walk) const {
    const uintptr_t thread = javaThreadOf(env);
    auto* sp = reinterpret_cast<volatile uintptr_t*>(thread + anchor_sp_);
    auto* fp = reinterpret_cast<volatile uintptr_t*>(thread + anchor_fp_);
    auto* pc = reinterpret_cast<volatile uintptr_t*>(thread + anchor_pc_);
    const uintptr_t saved_sp = *sp, saved_fp = *fp, saved_pc = *pc;
    *sp = frame.sp;
    *fp = frame.fp;
    *pc = frame.pc;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    walk();
    std::atomic_signal_fence(std::memory_order_seq_cst);
    *sp = saved_sp;
    *fp = saved_fp;
    *pc = saved_pc;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }

 private:
  uintptr_t javaThreadOf(JNIEnv* env) const {
    return reinterpret_cast<uintptr_t>(env) - static_cast<uintptr_t>(env_offset_);
  }
  int32_t stateOf(uintptr_t thread) const { return *reinterpret_cast<const volatile int32_t*>(thread + state_); }
  bool readAnchor(uintptr_t thread, uintptr_t sp, const StackBounds& stack, WalkRegisters& frame) const;

  bool bound_ = false;
  int64_t env_offset_ = 0;  // JNIEnv - JavaThread
  int64_t state_ = 0;
  int64_t anchor_sp_ = 0;
  int64_t anchor_fp_ = 0;
  int64_t anchor_pc_ = 0;
  int32_t in_vm_ = 0;
  int32_t in_java_ = 0;
  int32_t in_native_ = -1;  // -1: not told, never a state
  int32_t blocked_ = -1;    // likewise
  int32_t blocked_trans_ = -1, in_vm_trans_ = -1;
};

}  // namespace stackscope::agent

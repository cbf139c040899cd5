// One step up from a JIT stub (System.arraycopy's StubRoutines, say) to the Java method that
// called it. AsyncGetCallTrace cannot walk from a pc inside a stub: it reports "not in Java"
// or "unknown / not walkable Java" and the CPU spent there would be lost. The stack capture
// (stack_capture.cpp) retries the walk from the caller these functions compute; a wrong guess
// costs nothing, since AsyncGetCallTrace refuses a pc outside Java code.
//
// Pure and async-signal-safe: memory is read through `read`, and only at addresses that
// usedStackWord allows, because the signal handler must never fault.
#pragma once

#include <cstdint>

#include "native/frame_pointer_walk.h"

namespace stackscope::agent {

using native::StackBounds;
using native::usedStackWord;
using native::WalkRegisters;

// A stub without a frame of its own (a leaf): the return address is on top of the stack.
template <typename Read>
bool callerOfFramelessStub(const WalkRegisters& regs, const StackBounds& stack, Read read, WalkRegisters& caller) {
  if (!usedStackWord(regs.sp, regs.sp, stack)) return false;
  caller = {static_cast<uintptr_t>(read(regs.sp)), regs.sp + 8, regs.fp};
  return true;
}

// A stub that pushed the frame pointer: [fp] is the caller's fp, [fp + 8] the return address.
template <typename Read>
bool callerOfFramedStub(const WalkRegisters& regs, const StackBounds& stack, Read read, WalkRegisters& caller) {
  // usedStackWord(fp) bounds fp below the base, so fp + 8 cannot overflow.
  if (!usedStackWord(regs.fp, regs.sp, stack) || !usedStackWord(regs.fp + 8, regs.sp, stack)) return false;
  caller = {static_cast<uintptr_t>(read(regs.fp + 8)), regs.fp + 16, static_cast<uintptr_t>(read(regs.fp))};
  return true;
}

// A call compiled Java code makes into the VM or a C library without leaving Java (a leaf
// call: no frame anchor, so AsyncGetCallTrace sees a thread in Java whose pc is not in Java
// code; releasing a contended monitor calls pthread_cond_signal so). libjvm.so keeps frame
// pointers, and a libc leaf without a frame leaves rbp to its caller: their chain is followed
// up to the first return address in Java code (`inJava`), whose frame is the caller's. A
// chain that breaks, stops climbing or runs past kMaxLeafFrames finds nothing.
inline constexpr int kMaxLeafFrames = 32;

template <typename Read, typename InJava>
bool callerOfNativeLeaf(const WalkRegisters& regs, const StackBounds& stack, Read read, InJava inJava,
                        WalkRegisters& caller) {
  uintptr_t fp = regs.fp;
  for (int frames = 0; frames < kMaxLeafFrames; ++frames) {
    // usedStackWord(fp) bounds fp below the base, so fp + 8 cannot overflow.
    if (!usedStackWord(fp, regs.sp, stack) || !usedStackWord(fp + 8, regs.sp, stack)) return false;
    const auto return_address = static_cast<uintptr_t>(read(fp + 8));
    const auto caller_fp = static_cast<uintptr_t>(read(fp));
    if (inJava(return_address)) {
      caller = {return_address, fp + 16, caller_fp};
      return true;
    }
    if (caller_fp <= fp) return false;
    fp = caller_fp;
  }
  return false;
}

// The Java caller of a runtime stub's frame (`stub`: its sp, as the frame anchor holds it),
// `frame_words` words up (the code cache knows the size): the return address is the word below
// the caller's sp, the saved frame pointer the one below that. `interrupted_sp` is where the
// thread's used stack begins. A frame has two words at least: the return address and the
// saved frame pointer.
template <typename Read>
bool callerOfStubFrame(const WalkRegisters& stub, uint32_t frame_words, uintptr_t interrupted_sp,
                       const StackBounds& stack, Read read, WalkRegisters& caller) {
  const uintptr_t caller_sp = stub.sp + 8 * static_cast<uint64_t>(frame_words);
  if (frame_words < 2 || caller_sp <= stub.sp || !usedStackWord(caller_sp - 16, interrupted_sp, stack) ||
      !usedStackWord(caller_sp - 8, interrupted_sp, stack)) {
    return false;
  }
  caller = {static_cast<uintptr_t>(read(caller_sp - 8)), caller_sp, static_cast<uintptr_t>(read(caller_sp - 16))};
  return true;
}

// The compiled method whose prologue called the GC's entry barrier stub (StubRoutines'
// method_entry_barrier, JDK 20+ on x86-64), from the stub's frame as it calls the VM (`stub`:
// its fp is the stub's). The stub pushes a cookie word (a slot for the sp it may have to
// set when the method is deoptimized), then the method's frame pointer, which it points fp at:
// the method's return address into its prologue is 2 words above fp, its sp 3 words, its own
// fp the word at fp. `entered` is the method's frame as at the call: pc that return address.
template <typename Read>
bool callerOfEntryBarrierStub(const WalkRegisters& stub, uintptr_t interrupted_sp, const StackBounds& stack, Read read,
                              WalkRegisters& entered) {
  if (stub.fp > UINTPTR_MAX - 24 || !usedStackWord(stub.fp, interrupted_sp, stack) ||
      !usedStackWord(stub.fp + 16, interrupted_sp, stack)) {
    return false;
  }
  entered = {static_cast<uintptr_t>(read(stub.fp + 16)), stub.fp + 24, static_cast<uintptr_t>(read(stub.fp))};
  return true;
}

}  // namespace stackscope::agent

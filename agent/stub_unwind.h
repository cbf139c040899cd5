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

namespace stackscope::agent {

// The thread's stack, [low, base): stacks grow down from base. Both 0 when unknown.
struct StackBounds {
  uintptr_t low = 0;
  uintptr_t base = 0;
};

// The registers a stack walk starts from.
struct WalkRegisters {
  uintptr_t pc = 0;
  uintptr_t sp = 0;
  uintptr_t fp = 0;
};

// Whether the 8-byte word at addr lies in the part of the stack the thread has in use: at or
// above sp (below it the stack may be unmapped, or a guard zone) and below the base. An sp
// outside the stack (unknown bounds, a corrupt context) allows nothing.
inline bool usedStackWord(uintptr_t addr, uintptr_t sp, const StackBounds& stack) {
  return stack.low < stack.base && stack.base - stack.low >= 8 && stack.low <= sp && sp <= addr &&
         addr <= stack.base - 8 && addr % 8 == 0;
}

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

}  // namespace stackscope::agent

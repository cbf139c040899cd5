// Walks a native stack by its frame-pointer chain: each frame that keeps a frame pointer
// (rbp on x86-64) stores the caller's frame pointer at [fp] and the return address at
// [fp + 8]. Code built without frame pointers breaks the chain or skips a frame; the walk
// then stops early rather than guess (the leaf pc is always right).
//
// Pure and async-signal-safe, for signal handlers: memory is read through `read`, and only at
// addresses usedStackWord allows, so a corrupt or foreign frame pointer never faults.
#pragma once

#include <cstdint>

namespace stackscope::native {

// A thread's stack, [low, base): stacks grow down from base. Both 0 when unknown.
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

// One frame-pointer step: the caller of `frame`, whose function keeps rbp as its frame pointer
// ([fp] the caller's rbp, [fp + 8] the return address, the caller's sp above them). False when
// those words are not in the used stack (from interrupted_sp) or the frame pointer lies below
// the frame's sp: a step must climb the stack.
template <typename Read>
bool callerByFramePointer(const WalkRegisters& frame, uintptr_t interrupted_sp, const StackBounds& stack, Read read,
                          WalkRegisters& caller) {
  const uintptr_t fp = frame.fp;
  // usedStackWord(fp) bounds fp below the base, so fp + 8 cannot overflow.
  if (fp < frame.sp || !usedStackWord(fp, interrupted_sp, stack) || !usedStackWord(fp + 8, interrupted_sp, stack)) {
    return false;
  }
  caller = {static_cast<uintptr_t>(read(fp + 8)), fp + 16, static_cast<uintptr_t>(read(fp))};
  return true;
}

// Follows the frame-pointer chain from regs: out[0] = regs.pc, then one return address per
// frame. Stops at `max` addresses, at a frame word outside [sp, base), when the next frame
// pointer does not lie above the current one (the chain must climb the stack, so it cannot
// loop), or when stop(pc) is true for a return address (that pc is not written: the caller
// walks on from there by other means, a Java frame say). Returns the number written.
// `read` is uintptr_t(uintptr_t addr); `stop` is bool(uintptr_t pc).
template <typename Read, typename Stop>
int walkFramePointers(const WalkRegisters& regs, const StackBounds& stack, Read read, Stop stop, uintptr_t* out,
                      int max) {
  if (max <= 0 || regs.pc == 0) return 0;
  int count = 0;
  out[count++] = regs.pc;
  WalkRegisters frame = regs;
  while (count < max) {
    WalkRegisters caller;
    if (!callerByFramePointer(frame, regs.sp, stack, read, caller)) break;
    if (caller.pc == 0 || stop(caller.pc)) break;
    out[count++] = caller.pc;
    if (caller.fp <= frame.fp) break;
    frame = caller;
  }
  return count;
}

}  // namespace stackscope::native

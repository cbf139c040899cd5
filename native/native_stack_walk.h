// Walks a native stack on x86-64 frame by frame, by the module's call frame information where
// it has some (cfi_rules.h: functions built without a frame pointer, libc's and zlib's among
// them, no longer hide their callers) and by the frame pointer where it has none (code without
// CFI) or the CFI is in a form not interpreted (frame_pointer_walk.h). A frame whose CFI says
// it has no caller (clone3, _start) ends the walk.
//
// Pure and async-signal-safe, for signal handlers: stack words through `read`, and only at
// addresses usedStackWord allows; the tables' bytes with the bounds checks of cfi_rules.cpp.
#pragma once

#include <cstdint>

#include "native/cfi_rules.h"
#include "native/frame_pointer_walk.h"
#include "native/unwind_modules.h"

namespace stackscope::native {

enum class CfiStep { Stepped, NoRule, Outermost, End };

// The caller of `frame` by its CFI, looked up at `lookup_pc` (the pc, or a return address
// minus 1). NoRule: no CFI to go by, the frame pointer may still do; Outermost: the CFI says
// the frame has no caller (the thread's first function); End: the CFI puts the caller
// outside the used stack (the walk stops rather than guess).
template <typename Read>
CfiStep callerByCfi(const WalkRegisters& frame, uintptr_t lookup_pc, uintptr_t interrupted_sp, const StackBounds& stack,
                    const UnwindModules* modules, Read read, WalkRegisters& caller) {
  const UnwindModule* module = modules ? modules->find(lookup_pc) : nullptr;
  FrameRule rule;
  if (!module || modules->ruleAt(*module, lookup_pc, rule) != CfiResult::Found) return CfiStep::NoRule;
  if (rule.outermost) return CfiStep::Outermost;
  const uintptr_t base = rule.cfa_register == FrameRule::Cfa::Rsp ? frame.sp : frame.fp;
  const uintptr_t cfa = base + static_cast<uintptr_t>(rule.cfa_offset);
  // The CFA is the caller's sp: above this frame's, with the return address right below it.
  if (cfa <= frame.sp || !usedStackWord(cfa - 8, interrupted_sp, stack)) return CfiStep::End;
  const uintptr_t saved_rbp = cfa + static_cast<uintptr_t>(rule.rbp_offset);
  if (rule.rbp_saved && !usedStackWord(saved_rbp, interrupted_sp, stack)) return CfiStep::End;
  caller = {static_cast<uintptr_t>(read(cfa - 8)), cfa,
            rule.rbp_saved ? static_cast<uintptr_t>(read(saved_rbp)) : frame.fp};
  return CfiStep::Stepped;
}

// The caller of `frame` by its CFI, else by its frame pointer; false where neither gives one.
template <typename Read>
bool callerOfFrame(const WalkRegisters& frame, uintptr_t lookup_pc, uintptr_t interrupted_sp, const StackBounds& stack,
                   const UnwindModules* modules, Read read, WalkRegisters& caller) {
  const CfiStep step = callerByCfi(frame, lookup_pc, interrupted_sp, stack, modules, read, caller);
  if (step == CfiStep::Outermost || step == CfiStep::End) return false;
  return step == CfiStep::Stepped || callerByFramePointer(frame, interrupted_sp, stack, read, caller);
}

// From regs: out[0] = regs.pc, then one return address per frame, up to `max`; stops where
// neither the CFI nor the frame pointer gives a caller, at a zero return address, or when
// stop(pc) is true for a return address (not written: the caller walks on from there by other
// means, a Java frame say). Every step climbs the stack, so the walk cannot loop. Returns the
// number written. `modules` null: frame pointers only. `stopped`, when given: the registers of
// the frame stop() ended the walk at (its pc that return address), zeros when it did not.
template <typename Read, typename Stop>
int walkNativeStack(const WalkRegisters& regs, const StackBounds& stack, const UnwindModules* modules, Read read,
                    Stop stop, uintptr_t* out, int max, WalkRegisters* stopped = nullptr) {
  if (stopped) *stopped = {};
  if (max <= 0 || regs.pc == 0) return 0;
  int count = 0;
  out[count++] = regs.pc;
  WalkRegisters frame = regs;
  while (count < max) {
    // Above the interrupted frame, pc is a return address: one byte back is inside the call.
    const uintptr_t lookup_pc = count == 1 ? frame.pc : frame.pc - 1;
    WalkRegisters caller;
    if (!callerOfFrame(frame, lookup_pc, regs.sp, stack, modules, read, caller) || caller.pc == 0) break;
    if (stop(caller.pc)) {
      if (stopped) *stopped = caller;
      break;
    }
    out[count++] = caller.pc;
    frame = caller;
  }
  return count;
}

// From `frame`, whose pc is a return address (a caller's frame, not an interrupted one), down
// to the thread's first function: out[0] = frame.pc, then each caller's return address, up
// to `max`. The count when the walk ends at a frame whose CFI says it has no caller (clone3,
// _start); -1 when it ends anywhere else (a frame neither the CFI nor the frame pointer
// steps, a zero return address, more than `max` frames): a chain not known whole, which a
// caller that must not show a partial bottom of a stack leaves out.
template <typename Read>
int walkToFirstFunction(WalkRegisters frame, uintptr_t interrupted_sp, const StackBounds& stack,
                        const UnwindModules* modules, Read read, uintptr_t* out, int max) {
  for (int count = 0; count < max;) {
    out[count++] = frame.pc;
    WalkRegisters caller;
    const CfiStep step = callerByCfi(frame, frame.pc - 1, interrupted_sp, stack, modules, read, caller);
    if (step == CfiStep::Outermost) return count;
    if (step == CfiStep::End) return -1;
    if (step == CfiStep::NoRule && !callerByFramePointer(frame, interrupted_sp, stack, read, caller)) return -1;
    // Both steps climb the stack (the CFA lies above sp, a frame pointer at or above it).
    if (caller.pc == 0) return -1;
    frame = caller;
  }
  return -1;
}

}  // namespace stackscope::native

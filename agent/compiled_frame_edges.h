// One step up from a compiled Java method (an nmethod) interrupted while its frame is not
// built yet (the prologue) or already taken down (the epilogue). AsyncGetCallTrace cannot walk
// from there: it trusts the method's frame size, which is wrong until the prologue ends and
// after the epilogue pops the frame, and reports "unknown Java" (-5). For a small method
// called through a megamorphic site (Number.doubleValue, Supplier.get) that is most of its
// samples: they were lost, or credited to the caller. Here the instructions HotSpot emits for
// those two edges are read to find where the return address is at pc, so the walk can go on
// from the caller with the method itself on top.
//
// Only sequences known exactly are accepted (x86-64 C1 and C2, JDK 17 to 25):
//   prologue   [stack bang: mov %eax,-N(%rsp)] push %rbp [mov %rsp,%rbp] sub $N,%rsp
//              (mov %rsp,%rbp in either encoding: native wrappers use the other one)
//           or sub $N,%rsp; mov %rbp,N-8(%rsp)              (C2 without a stack bang)
//   epilogue   add $N,%rsp; pop %rbp; cmp poll(%r15),%rsp; ja poll_stub; ret
// Anything else gives up: a walk that cannot be proven right is not made.
//
// Pure and async-signal-safe: stack words through `read` at addresses usedStackWord allows,
// code bytes through `code` only inside [code_begin, code_end).
#pragma once

#include <cstdint>
#include <initializer_list>

#include "agent/stub_unwind.h"

namespace stackscope::agent {

// What the walk needs of the nmethod holding a pc (compiled_code.h finds it).
struct CompiledMethodCode {
  uintptr_t code_begin = 0;
  uintptr_t code_end = 0;
  uintptr_t verified_entry = 0;  // where a call enters once the inline-cache check passed
  uintptr_t frame_complete = 0;  // the first pc at which the frame is built
  uint32_t frame_words = 0;      // the frame's size in words, the return address included
  const void* method = nullptr;  // HotSpot's Method*
  uintptr_t blob = 0;            // the nmethod itself (compiled_code.h reads its debug records)
};

// What the walk needs of any code blob's frame (a runtime stub's, say).
struct CodeBlobFrame {
  uintptr_t code_begin = 0;
  uintptr_t code_end = 0;
  uintptr_t frame_complete = 0;  // the first pc at which the frame is built; 0 when not told
  uint32_t frame_words = 0;      // the frame's size in words, the return address included
  bool nmethod = false;          // a compiled Java method's
};

namespace edges_detail {

template <typename Code>
bool bytesAre(const CompiledMethodCode& nm, uintptr_t at, Code code, std::initializer_list<uint8_t> expected) {
  if (at < nm.code_begin || at > nm.code_end || nm.code_end - at < expected.size()) return false;
  for (const uint8_t byte : expected) {
    if (code(at++) != byte) return false;
  }
  return true;
}

template <typename Code>
uint32_t imm32(uintptr_t at, Code code) {
  return static_cast<uint32_t>(code(at)) | static_cast<uint32_t>(code(at + 1)) << 8 |
         static_cast<uint32_t>(code(at + 2)) << 16 | static_cast<uint32_t>(code(at + 3)) << 24;
}

// The length of the return's safepoint poll at `at` (cmp poll_word(%r15),%rsp), 0 if none.
template <typename Code>
int returnPollLength(const CompiledMethodCode& nm, uintptr_t at, Code code) {
  if (bytesAre(nm, at, code, {0x49, 0x3b, 0xa7}) && nm.code_end - at >= 7) return 7;  // disp32
  if (bytesAre(nm, at, code, {0x49, 0x3b, 0x67}) && nm.code_end - at >= 4) return 4;  // disp8
  return 0;
}

// Whether the frame is popped at pc: pc is the poll after `pop %rbp`, the `ja` after that
// poll, or the `ret`.
template <typename Code>
bool framePoppedAt(const CompiledMethodCode& nm, uintptr_t pc, Code code) {
  if (bytesAre(nm, pc, code, {0xc3})) return true;
  if (returnPollLength(nm, pc, code) > 0) return bytesAre(nm, pc - 1, code, {0x5d});
  if (!bytesAre(nm, pc, code, {0x0f, 0x87})) return false;
  for (const int length : {7, 4}) {
    if (pc - nm.code_begin > static_cast<uintptr_t>(length) && returnPollLength(nm, pc - length, code) == length &&
        bytesAre(nm, pc - length - 1, code, {0x5d})) {
      return true;
    }
  }
  return false;
}

}  // namespace edges_detail

// The caller's registers when pc, in `nm`, is in its prologue or epilogue; false when pc is in
// the body (the ordinary walk's business) or the code there is not a sequence known here.
template <typename Read, typename Code>
bool callerOfFrameEdge(const CompiledMethodCode& nm, const WalkRegisters& regs, const StackBounds& stack, Read read,
                       Code code, WalkRegisters& caller) {
  using edges_detail::bytesAre;
  if (regs.pc < nm.code_begin || regs.pc >= nm.code_end || nm.frame_words == 0) return false;
  uint64_t return_slot = 0;  // the return address's distance from sp
  bool fp_moved = false;     // the prologue already pointed rbp at the frame
  if (regs.pc >= nm.frame_complete) {
    if (bytesAre(nm, regs.pc, code, {0x5d})) {  // pop %rbp: sp is at the saved rbp
      if (!usedStackWord(regs.sp, regs.sp, stack) || !usedStackWord(regs.sp + 8, regs.sp, stack)) return false;
      caller = {static_cast<uintptr_t>(read(regs.sp + 8)), regs.sp + 16, static_cast<uintptr_t>(read(regs.sp))};
      return true;
    }
    if (!edges_detail::framePoppedAt(nm, regs.pc, code)) return false;
  } else if (regs.pc >= nm.verified_entry) {
    // Replays the prologue from the verified entry up to pc, adding up how far sp moved.
    uintptr_t at = nm.verified_entry;
    while (at < regs.pc) {
      if (bytesAre(nm, at, code, {0x89, 0x84, 0x24})) {
        at += 7;  // the stack bang probes below sp and moves nothing
      } else if (bytesAre(nm, at, code, {0x55})) {
        return_slot += 8;
        at += 1;
      } else if (bytesAre(nm, at, code, {0x48, 0x89, 0xe5}) || bytesAre(nm, at, code, {0x48, 0x8b, 0xec})) {
        fp_moved = true;
        at += 3;
      } else if (bytesAre(nm, at, code, {0x48, 0x83, 0xec}) && nm.code_end - at >= 4) {
        return_slot += code(at + 3);
        at += 4;
      } else if (bytesAre(nm, at, code, {0x48, 0x81, 0xec}) && nm.code_end - at >= 7) {
        return_slot += edges_detail::imm32(at + 3, code);
        at += 7;
      } else if (bytesAre(nm, at, code, {0x48, 0x89, 0x6c, 0x24})) {
        at += 5;  // saves rbp inside the frame
      } else if (bytesAre(nm, at, code, {0x48, 0x89, 0xac, 0x24})) {
        at += 8;
      } else {
        // Past the frame's set-up (the nmethod entry barrier, say) nothing moves sp: only a
        // fully built frame is trusted from here on.
        if (return_slot != (static_cast<uint64_t>(nm.frame_words) - 1) * 8) return false;
        break;
      }
    }
    if (at > regs.pc) return false;  // pc inside an instruction: not a sequence known here
  }
  // Before the verified entry (the inline-cache check) nothing is pushed: return_slot is 0.
  const uintptr_t slot = regs.sp + return_slot;
  if (slot < regs.sp || !usedStackWord(slot, regs.sp, stack)) return false;
  if (fp_moved && !usedStackWord(slot - 8, regs.sp, stack)) return false;
  caller = {static_cast<uintptr_t>(read(slot)), slot + 8, fp_moved ? static_cast<uintptr_t>(read(slot - 8)) : regs.fp};
  return true;
}

}  // namespace stackscope::agent

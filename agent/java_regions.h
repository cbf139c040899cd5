// A Java thread's stack as the regions it is made of, for mixed mode's native frames between
// Java frames. Native code that calls into Java (a JNI method calling back through
// jni_CallStaticVoidMethod, the VM loading a class with ClassLoader.loadClass) does it
// through JavaCalls::call_helper and the call stub, whose frame (the entry frame) holds a
// JavaCallWrapper: the frame anchor the thread had before the call, that is where the Java
// frames of the caller's region begin. Innermost first a stack is then
//   Java region 0 | entry frame 0 | native frames | Java region 1 | entry frame 1 | ...
// AsyncGetCallTrace steps over the native frames of the middle (it follows the wrappers'
// anchors); these functions find them: each Java region is walked frame by frame up to its
// entry frame (compiled frames and stubs by their frame size from the code cache, interpreted
// ones by their rbp chain, as HotSpot's frame::sender does on x86-64), the wrapper gives the
// next region's top, and the native frames between are walked from the entry frame down to
// that top (by their CFI, by frame pointers where there is none).
//
// Pure and async-signal-safe: stack words through `read` at addresses usedStackWord allows;
// what a pc is, through `classify` (the VM's code cache, entry_frames.h).
#pragma once

#include <cstdint>

#include "agent/stub_unwind.h"
#include "native/native_stack_walk.h"

namespace stackscope::agent {

// What code a pc (a return address, or the interrupted pc at the top) is in.
struct CodeAtPc {
  enum class Kind { Unknown, CallStubReturn, Interpreter, Framed };
  Kind kind = Kind::Unknown;
  uint32_t frame_words = 0;  // Framed: the code blob's frame size, the return address included
};

// HotSpot's x86-64 frame layout, from the VM's tables (entry_frames.h).
struct JavaFrameLayout {
  int64_t call_wrapper_words = 0;  // an entry frame's JavaCallWrapper*, in words from its fp
  int64_t sender_sp_words = 0;     // an interpreted frame's sender sp, in words from its fp
  int64_t anchor_sp = 0;           // the wrapper's saved frame anchor: its last Java sp,
  int64_t anchor_fp = 0;           // fp and pc, in bytes from the wrapper
  int64_t anchor_pc = 0;
};

// A frame walk that goes on and on is not a stack (a Java thread's stack of 1 MiB holds at
// most 64 Ki frames of two words): it gives up.
inline constexpr int kMaxRegionFrames = 1 << 16;

// From the top of a Java region (a Java frame's pc, sp and fp; a runtime stub's frame is one
// too) to the fp of its entry frame, the call stub's, and the region's outermost frame, the
// one the call stub called (`called`; pc 0 if the top was the call stub's frame already).
// False when a frame is not one known here (a stub without a frame size, a pc in no code
// blob) or a word it needs is not in the used stack: the caller then shows the stack as
// AsyncGetCallTrace alone has it.
template <typename Read, typename Classify>
bool entryFrameOf(WalkRegisters frame, uintptr_t interrupted_sp, const StackBounds& stack, Read read,
                  Classify classify, const JavaFrameLayout& layout, uintptr_t& entry_fp, WalkRegisters& called) {
  WalkRegisters callee;
  for (int frames = 0; frames < kMaxRegionFrames; ++frames) {
    const CodeAtPc code = classify(frame.pc);
    WalkRegisters caller;
    if (code.kind == CodeAtPc::Kind::CallStubReturn) {
      // The frame that returns there was called by the call stub, whose rbp it saved.
      if (!usedStackWord(frame.fp, interrupted_sp, stack) || frame.fp < frame.sp) return false;
      entry_fp = frame.fp;
      called = callee;
      return true;
    }
    if (code.kind == CodeAtPc::Kind::Interpreter) {
      // [fp] the caller's fp, [fp + 8] the return address, the caller's sp saved in the frame
      // (unextended: a compiled caller's frame size counts from there).
      const uintptr_t sender_sp_slot = frame.fp + static_cast<uintptr_t>(layout.sender_sp_words * 8);
      if (frame.fp < frame.sp || !usedStackWord(frame.fp, interrupted_sp, stack) ||
          !usedStackWord(frame.fp + 8, interrupted_sp, stack) ||
          !usedStackWord(sender_sp_slot, interrupted_sp, stack)) {
        return false;
      }
      caller = {static_cast<uintptr_t>(read(frame.fp + 8)), static_cast<uintptr_t>(read(sender_sp_slot)),
                static_cast<uintptr_t>(read(frame.fp))};
      if (caller.sp <= frame.fp) return false;
    } else if (code.kind == CodeAtPc::Kind::Framed) {
      if (!callerOfStubFrame(frame, code.frame_words, interrupted_sp, stack, read, caller)) return false;
    } else {
      return false;
    }
    if (caller.sp <= frame.sp) return false;  // the walk must climb the stack
    callee = frame;
    frame = caller;
  }
  return false;
}

// The top of the Java region below the entry frame at entry_fp: the frame anchor its
// JavaCallWrapper saved (the pc HotSpot would compute, the word below the sp, when the anchor
// has none). `bottom` when the wrapper saved no anchor: native code with no Java frame under
// it (the launcher's JavaMain, a thread's start) called into Java. The wrapper is a local of
// JavaCalls::call_helper, whose frame lies under the entry frame. False when a word is not in
// the used stack or the anchor does not lie under the entry frame.
template <typename Read>
bool regionBelow(uintptr_t entry_fp, uintptr_t interrupted_sp, const StackBounds& stack, Read read,
                 const JavaFrameLayout& layout, WalkRegisters& top, bool& bottom) {
  const uintptr_t wrapper_slot = entry_fp + static_cast<uintptr_t>(layout.call_wrapper_words * 8);
  if (!usedStackWord(wrapper_slot, interrupted_sp, stack)) return false;
  const auto wrapper = static_cast<uintptr_t>(read(wrapper_slot));
  const auto in_wrapper = [&](int64_t offset) {
    return wrapper > entry_fp && usedStackWord(wrapper + static_cast<uintptr_t>(offset), interrupted_sp, stack);
  };
  if (!in_wrapper(layout.anchor_sp) || !in_wrapper(layout.anchor_fp) || !in_wrapper(layout.anchor_pc)) return false;
  top.sp = static_cast<uintptr_t>(read(wrapper + static_cast<uintptr_t>(layout.anchor_sp)));
  bottom = top.sp == 0;
  if (bottom) return true;
  top.fp = static_cast<uintptr_t>(read(wrapper + static_cast<uintptr_t>(layout.anchor_fp)));
  top.pc = static_cast<uintptr_t>(read(wrapper + static_cast<uintptr_t>(layout.anchor_pc)));
  if (top.sp <= entry_fp + 16 || !usedStackWord(top.sp - 8, interrupted_sp, stack)) return false;
  if (top.pc == 0) top.pc = static_cast<uintptr_t>(read(top.sp - 8));
  return top.pc != 0;
}

// How far above the anchor's sp the native chain may reach Java code: code that calls into the
// VM stores the anchor before it aligns the stack (8 bytes) and, in the interpreter, before
// an intermediate call of its own (8 more).
inline constexpr uintptr_t kMaxCallPadding = 32;

// The native frames between an entry frame and the Java region below it (whose top's sp is
// below_sp): return addresses, innermost first (JavaCalls::call_helper's, ...,
// jni_CallStaticVoidMethod's, the JNI method's C function), up to `max`. The entry frame (the
// call stub's) keeps rbp; the frames under it are stepped by their CFI, by their frame pointer
// where there is none (native/native_stack_walk.h; `modules` null: frame pointers only). The
// chain must end in the code cache at below_sp (or kMaxCallPadding above it); a frame neither
// steps may cut it short (what was found is kept), but a chain that reaches Java code anywhere
// else is not this stack's: -1.
template <typename Read, typename InCodeCache>
int nativeFramesBetween(uintptr_t entry_fp, uintptr_t below_sp, uintptr_t interrupted_sp, const StackBounds& stack,
                        const native::UnwindModules* modules, Read read, InCodeCache inCodeCache, uintptr_t* out,
                        int max) {
  int count = 0;
  WalkRegisters frame{0, entry_fp, entry_fp};
  while (count < max) {
    WalkRegisters caller;
    // Above the entry frame each pc is a return address: one byte back is inside the call.
    const bool stepped = frame.pc == 0  // the entry frame
                             ? native::callerByFramePointer(frame, interrupted_sp, stack, read, caller)
                             : native::callerOfFrame(frame, frame.pc - 1, interrupted_sp, stack, modules, read, caller);
    if (!stepped || caller.sp > below_sp) break;
    if (inCodeCache(caller.pc)) return below_sp - caller.sp <= kMaxCallPadding ? count : -1;
    if (caller.pc == 0) break;
    out[count++] = caller.pc;
    frame = caller;
  }
  return count;
}

}  // namespace stackscope::agent

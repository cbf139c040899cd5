// Mixed mode: the native frames below a Java thread's outermost Java frame, the ones that
// called into Java (JavaCalls::call_helper ... jni_CallStaticVoidMethod <- JavaMain <-
// ThreadJavaMain <- start_thread <- __clone3 for the launcher's main thread; ... thread_entry
// ... thread_native_entry <- start_thread <- __clone3 for a thread Java started; the C
// function that called for a thread attached through JNI).
//
// They start at the outermost entry frame (java_regions.h), which only the walk of every Java
// region finds, and they hardly ever change: a thread's outermost call into Java lasts the
// thread's life (Thread.run, main) or, for a thread attached through JNI, one call. So each
// thread keeps them, found once by the full walk, together with every stack word that walk
// read: the entry frame's JavaCallWrapper (whose saved frame anchor, empty, says the call is
// the outermost), the return address and saved frame pointer of each frame below. A sample
// shows them only when all those words still hold what they held and its Java frames still
// end with the method the outermost call called; a fresh walk from the same entry frame could
// give no other frames then. Else the full walk runs again. A warm check costs about as many
// loads as there are frames below (2 a frame), no table lookup.
//
// When the outermost call returns and another begins: made from the same place (a JNI thread
// calling Java in a loop), it has the same frames below, and the words say so; made from
// elsewhere, the words differ where the two chains part (the frame both share called another
// function: a different return address, in the same word when that frame calls with the
// same stack pointer). The one case the check cannot tell: a later call whose frames left
// every word the old walk read as it was (stack space reserved and never written) and whose
// chain parts from the old one at another stack pointer.
//
// A walk below that does not end at the thread's first function (the CFI says it has no
// caller) is kept as "none": a stack shows all of its bottom or none of it, never a guess.
//
// SIGNAL SAFETY: everything here runs in the SIGPROF handler on the thread itself
// (stack_capture.cpp's rules): stack words only where usedStackWord allows.
#pragma once

#include <cstdint>

#include "agent/java_regions.h"
#include "agent/sample_slot.h"
#include "native/unwind_modules.h"

namespace stackscope::agent {

// A launcher's main thread has about 8 native frames below, a thread Java started about 11.
inline constexpr int kMaxBelowFrames = 32;
// Two per frame at most (return address, saved rbp), the entry frame's and the JavaCallWrapper's.
inline constexpr int kMaxBelowWords = 2 * kMaxBelowFrames + 4;

struct StackWord {
  uintptr_t address;
  uintptr_t value;
};

// One thread's native frames below its outermost call into Java. Its own signal handler's
// only (thread_registry.h's ThreadSlot holds one).
struct NativeFramesBelow {
  uintptr_t entry_fp = 0;                  // the outermost entry frame; 0: nothing known
  const void* outermost_method = nullptr;  // the jmethodID the Java frames end with
  int32_t count = 0;                       // frames below; 0: none shown (not known whole)
  int32_t words = 0;
  uintptr_t pcs[kMaxBelowFrames];  // return addresses, innermost (call_helper's) first
  StackWord read[kMaxBelowWords];  // what the walk read
};

// Whether `below` still holds for a sample whose Java frames end with `outermost_method`:
// the same method, and every word the walk read still in the used stack with its value.
bool belowStillHolds(const NativeFramesBelow& below, const void* outermost_method, uintptr_t interrupted_sp,
                     const StackBounds& stack);

// Walks the frames below the outermost entry frame at entry_fp (found by the region walk, for
// Java frames that end with `outermost_method`) into `below`, with the words read. Kept with
// no frame when the walk does not reach the thread's first function (the same words would
// give the same answer: no walk again while they hold); nothing kept (entry_fp 0) when the
// wrapper does not say the call is the outermost or the walk read more words than kept.
void walkBelow(NativeFramesBelow& below, uintptr_t entry_fp, const void* outermost_method, uintptr_t interrupted_sp,
               const StackBounds& stack, const JavaFrameLayout& layout, const native::UnwindModules* modules);

// Writes the frames below, outermost last: `entry_frame` (the call stub's, "[stub] call_stub";
// null when the VM did not name it) then the native ones. The number written; 0 when none is
// known or they do not all fit in `room` (the bottom of a stack is shown whole or not at all).
int32_t framesBelow(const NativeFramesBelow& below, const RawFrame* entry_frame, RawFrame* out, int32_t room);

}  // namespace stackscope::agent

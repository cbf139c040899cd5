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
// the outermost), the return address and saved frame pointer of each frame below, and the
// unwinding tables it stepped by (a library whose tables arrive later, dlopen'ed after the
// walk, may complete a walk that failed). A sample shows them only when all those words still
// hold what they held, the tables are the same, and its Java frames end exactly as a walk from
// the bottom Java frame (the one the outermost call stub called) ended when one of the last
// few samples was checked: each of that frame's entries, its method and bci and the methods
// it inlined at the call it is in. A fresh walk from the same entry frame could give no other
// frames then. Else the full walk runs again (only the check of the Java frames, when the
// words hold). A warm check costs about as many loads as there are frames below (2 a frame)
// and the bottom frame's entries, no table lookup.
//
// A Java frame list that ended early (AsyncGetCallTrace stops quietly at a frame it misread)
// must get nothing below. Its last frame would have to be the outermost method at the very
// call the bottom frame is in; when that call is anywhere else in the list (the outermost
// method calling itself again from there) an early end cannot be told from the true one, and
// nothing is shown. The case left: a list that ended at a frame with the bottom frame's
// entries and holds no other frame with them (AsyncGetCallTrace, which gives no frame's
// address, says nothing more).
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
// Kept with its words like a walk that succeeded, it is not walked again while they and the
// tables hold: a thread whose C caller has no CFI costs the warm check only.
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
// The bottom Java frame's entries in a Java frame list: its method and the ones inlined into it
// at the call it is in. Deeper inlining is checked on its innermost entries only.
inline constexpr int kMaxBottomEntries = 8;
// The bottom frame's calls checked and kept, the oldest replaced first: a loop in main that
// calls a few methods in turn is shown its frames below with no walk at each turn.
inline constexpr int kMaxBottomCalls = 4;

// The bottom Java frame's entries as a walk from it gave them, innermost first.
struct BottomCall {
  int32_t entries = 0;
  RawFrame frames[kMaxBottomEntries];
};

struct StackWord {
  uintptr_t address;
  uintptr_t value;
};

// One thread's native frames below its outermost call into Java. Its own signal handler's
// only (thread_registry.h's ThreadSlot holds one).
struct NativeFramesBelow {
  uintptr_t entry_fp = 0;                          // the outermost entry frame; 0: nothing known
  const native::UnwindModules* modules = nullptr;  // the tables the walk stepped by
  int32_t count = 0;                               // frames below; 0: none shown (not known whole)
  int32_t words = 0;
  int32_t calls = 0;                               // bottom[0, calls) were checked
  int32_t next_call = 0;                           // the one keepBottomFrame replaces when full
  uintptr_t pcs[kMaxBelowFrames];  // return addresses, innermost (call_helper's) first
  StackWord read[kMaxBelowWords];  // what the walk read
  BottomCall bottom[kMaxBottomCalls];
};

// Whether the walk kept in `below` still holds: every word it read still in the used stack
// with its value, and the tables it stepped by still the ones published (`modules`, which a
// library loaded since replaces: unwind_modules.h).
bool belowStillHolds(const NativeFramesBelow& below, const native::UnwindModules* modules, uintptr_t interrupted_sp,
                     const StackBounds& stack);

// The bottom frame's call kept in `below` that the Java frames list[0, count) end with; null
// when none.
const BottomCall* endsAtBottomFrame(const NativeFramesBelow& below, const RawFrame* list, int32_t count);

// Keeps list[0, count), the entries a walk from the bottom Java frame gave (that frame's), as
// entries a list may end with to be shown the frames below (its innermost ones when more
// than kMaxBottomEntries).
void keepBottomFrame(NativeFramesBelow& below, const RawFrame* list, int32_t count);

// Walks the frames below the outermost entry frame at entry_fp (found by the region walk) into
// `below`, with the words read and the tables used; its bottom frame's entries are left for
// keepBottomFrame. Kept with no frame when the walk does not reach the thread's first function
// (the same words would give the same answer: no walk again while they hold); nothing kept
// (entry_fp 0) when the wrapper does not say the call is the outermost or the walk read more
// words than kept.
void walkBelow(NativeFramesBelow& below, uintptr_t entry_fp, uintptr_t interrupted_sp, const StackBounds& stack,
               const JavaFrameLayout& layout, const native::UnwindModules* modules);

// Writes the frames below a Java frame list that endsAtBottomFrame, list[0, count), outermost
// last: `entry_frame` (the call stub's, "[stub] call_stub"; null when the VM did not name it)
// then the native ones. The number written; 0 when none is known, they do not all fit in
// `room` (the bottom of a stack is shown whole or not at all), or the bottom frame's call is
// in the list again above its end (one that ended early there could not be told apart).
int32_t framesBelow(const NativeFramesBelow& below, const RawFrame* list, int32_t count, const RawFrame* entry_frame,
                    RawFrame* out, int32_t room);

}  // namespace stackscope::agent

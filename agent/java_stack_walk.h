// AsyncGetCallTrace, and the walks that try it again where it fails or is wrong: from a JIT
// stub's caller, over a compiled method's prologue or epilogue, above the words an intrinsic
// pushed, from a leaf call into native code, from a runtime stub's caller, for a thread in the
// VM from its completed frame anchor; and from a Java region's top for mixed mode. Kept apart
// from the SIGPROF handler (stack_capture.cpp) that runs them: the handler decides what a
// sample is and where it goes, these know HotSpot's frames on x86-64. Everything here runs in
// that handler, under its rules (the top of stack_capture.cpp).
#pragma once

#include <jni.h>
#include <ucontext.h>

#include <cstdint>

#include "agent/code_regions.h"
#include "agent/compiled_code.h"
#include "agent/entry_frames.h"
#include "agent/sample_slot.h"
#include "agent/thread_registry.h"
#include "agent/vm_thread_anchor.h"

namespace stackscope::agent {

// AsyncGetCallTrace's results that matter here (HotSpot's forte.cpp).
inline constexpr jint kNoJavaFrame = 0;
inline constexpr jint kGcActive = -2;         // ticks_GC_active
inline constexpr jint kNotInJava = -3;        // ticks_unknown_not_Java
inline constexpr jint kNotWalkableVm = -4;    // ticks_not_walkable_not_Java
inline constexpr jint kUnknownJava = -5;      // ticks_unknown_Java
inline constexpr jint kNotWalkableJava = -6;  // ticks_not_walkable_Java

// AsyncGetCallTrace (from findAsyncGetCallTrace; null: none) and the stubs' names (may be
// null) the walks use; set while no handler runs, before any does.
void bindJavaStackWalk(void* async_get_call_trace, const CodeRegions* code_regions);

// Walks the Java frames of the interrupted thread into `frames` (at most `depth`); returns
// AsyncGetCallTrace's num_frames, or the walk's again from where it failed.
jint walkJava(ThreadSlot& thread, JNIEnv* env, RawFrame* frames, jint depth, void* ucontext);

#if defined(__x86_64__)
// The VM's structures the x86-64 walks read (stack_capture.h's setters): null until bound.
const CompiledCode* boundCompiledCode();
const VmThreadAnchor* boundVmThreadAnchor();
const EntryFrames* boundEntryFrames();
const CodeRegions* boundCodeRegions();

// The registers a walk starts from, as the signal interrupted them.
WalkRegisters registersOf(const ucontext_t& context);
// Only ever called on addresses that usedStackWord allowed.
uintptr_t readStackWord(uintptr_t addr);
// Only called on addresses inside a compiled method's code (compiled_frame_edges.h).
uint8_t readCodeByte(uintptr_t addr);

// How AsyncGetCallTrace is walked again from a Java region's top (native_between.h): through a
// moved copy of the signal's context for a thread in Java (which has no frame anchor then),
// through its frame anchor pointed there for a thread in the VM (vm_thread_anchor.h).
struct RegionWalk {
  JNIEnv* env;
  void* ucontext;
  const VmThreadAnchor* anchor;
  VmThreadAnchor::State state;
};

// native_between.h's WalkJavaFrom, with `data` a RegionWalk.
int32_t walkFromRegionTop(const WalkRegisters& top, RawFrame* out, int32_t depth, void* data);
#endif

}  // namespace stackscope::agent

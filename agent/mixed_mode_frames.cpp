// See mixed_mode_frames.h. The SIGNAL HANDLER RULES at the top of stack_capture.cpp hold for
// everything here.
#include "agent/mixed_mode_frames.h"

#include <algorithm>

#include "agent/compiled_frame_edges.h"
#include "agent/cpu_sampler.h"
#include "agent/java_stack_walk.h"
#include "agent/native_below.h"
#include "agent/native_between.h"
#include "agent/stub_unwind.h"
#include "native/native_stack_walk.h"

namespace stackscope::agent {

#if defined(__x86_64__)
jint walkNative(ThreadSlot& thread, RawFrame* frames, jint depth, void* ucontext) {
  const CompiledCode* code = boundCompiledCode();
  const WalkRegisters regs = registersOf(*static_cast<const ucontext_t*>(ucontext));
  // Without the code cache's bounds there is no telling where native frames end.
  if (!code || code->contains(regs.pc)) return 0;
  if (!thread.stack_ready.load(std::memory_order_acquire)) {
    frames[0] = {kNativeFrameBci, reinterpret_cast<const void*>(regs.pc)};
    return 1;
  }
  constexpr int kMaxNativeFrames = 128;  // leaves room for the Java frames
  uintptr_t pcs[kMaxNativeFrames];
  const auto in_code_cache = [code](uintptr_t pc) { return code->contains(pc); };
  // By the modules' CFI, frame pointers where there is none (native/native_stack_walk.h).
  const int count = native::walkNativeStack(regs, thread.stack, native::loadedUnwindModules(), readStackWord,
                                            in_code_cache, pcs, std::min<int>(kMaxNativeFrames, depth));
  for (int i = 0; i < count; ++i) {
    // A return address is the instruction after the call, maybe already past the caller's end.
    frames[i] = {kNativeFrameBci, reinterpret_cast<const void*>(i == 0 ? pcs[i] : pcs[i] - 1)};
  }
  return count;
}

namespace {

// Where the thread's innermost Java frame is, as AsyncGetCallTrace found it: its frame anchor
// (a thread in native code or in the VM, or on its way there), else in Java the interrupted
// frame (the caller, in a compiled method's prologue or epilogue) or the compiled caller of
// the native code it called.
bool innermostJavaFrame(const ThreadSlot& thread, JNIEnv* env, const VmThreadAnchor& anchor, const CompiledCode& code,
                        const WalkRegisters& regs, WalkRegisters& top, VmThreadAnchor::State& state) {
  if (anchor.lastJavaFrame(env, regs.sp, thread.stack, top, state)) return true;
  if (state != VmThreadAnchor::State::InJava) return false;
  const auto inJava = [&code](uintptr_t pc) { return code.contains(pc); };
  if (!code.contains(regs.pc)) return callerOfNativeLeaf(regs, thread.stack, readStackWord, inJava, top);
  CompiledMethodCode method;
  if (code.find(regs.pc, method) && callerOfFrameEdge(method, regs, thread.stack, readStackWord, readCodeByte, top)) {
    return true;
  }
  top = regs;
  return true;
}

// The thread's kept frames below its outermost Java frame (native_below.h) for the Java
// frames list[0, count), at list[count, count + room) under the call stub's frame; the number
// written.
jint keptFramesBelow(const ThreadSlot& thread, const EntryFrames& entry, RawFrame* list, jint count, jint room) {
  RawFrame call_stub;
  const RawFrame* named = callStubFrame(entry, boundCodeRegions(), call_stub) ? &call_stub : nullptr;
  return framesBelow(thread.below, list, count, named, list + count, room);
}

// Mixed mode, after a region walk that reached the bottom of the stack: the native frames
// below its outermost Java frame (native_below.h) at list[count, count + room), walked again
// only when the thread's kept ones do not hold. A list that does not end with the bottom
// frame's entries as last checked is checked again: the Java frames (list[0, count)) must be
// known to end at the frame the outermost call stub called, AsyncGetCallTrace walked again
// from there ends as they do (a walk from the signal's context can end early and quietly at a
// frame it misread, walkOverPushedWords), and what it gave is that frame's entries. A list
// walked from a frame anchor (a thread in native code, not walked again) starts at a frame
// the VM left whole: its last entry is kept. The number of frames written.
jint framesBelowRegions(ThreadSlot& thread, const RegionsFound& found, const EntryFrames& entry, RawFrame* list,
                        jint count, jint room, uintptr_t sp, WalkJavaFrom walk_again, RegionWalk& walk) {
  if (found.bottom_entry_fp == 0 || found.bottom_java_frame.pc == 0) return 0;
  const native::UnwindModules* modules = native::loadedUnwindModules();
  const bool kept = thread.below.entry_fp == found.bottom_entry_fp && belowStillHolds(thread.below, modules, sp, thread.stack);
  if (!kept || !endsAtBottomFrame(thread.below, list, count)) {
    int32_t entries = 1;
    if (walk_again && (entries = listFramesFrom(found.bottom_java_frame, list, count, room, walk_again, &walk)) < 0) {
      return 0;
    }
    if (!kept) walkBelow(thread.below, found.bottom_entry_fp, sp, thread.stack, entry.layout(), modules);
    keepBottomFrame(thread.below, list + count - entries, entries);
  }
  return keptFramesBelow(thread, entry, list, count, room);
}

}  // namespace

// A thread whose active handle block is the one of its single-region stack has one region
// still (entry_frames.h): one load, and the check of the frames below that it kept, with no
// walk. A list that filled the slot may have been cut: it has nothing below.
jint withNativeFramesAround(ThreadSlot& thread, JNIEnv* env, RawFrame* frames, jint native, jint java, void* ucontext) {
  const EntryFrames* entry = boundEntryFrames();
  const VmThreadAnchor* anchor = boundVmThreadAnchor();
  const CompiledCode* code = boundCompiledCode();
  if (!entry || !anchor || !code || !env || thread.mounted_vthread.load(std::memory_order_relaxed) != 0 ||
      !thread.stack_ready.load(std::memory_order_acquire)) {
    return java;
  }
  const bool whole = native + java < kMaxFrames;
  const uintptr_t handles = entry->activeHandles(env);
  const WalkRegisters regs = registersOf(*static_cast<const ucontext_t*>(ucontext));
  RawFrame* const list = frames + native;
  if (handles == thread.single_region_handles) {
    if (!whole) return java;
    if (belowStillHolds(thread.below, native::loadedUnwindModules(), regs.sp, thread.stack) &&
        endsAtBottomFrame(thread.below, list, java)) {
      return java + keptFramesBelow(thread, *entry, list, java, kMaxFrames - native - java);
    }
  }
  BetweenInput input{entry, boundCodeRegions(), thread.stack, regs.sp, {}};
  VmThreadAnchor::State state = VmThreadAnchor::State::Other;
  if (!innermostJavaFrame(thread, env, *anchor, *code, regs, input.top, state)) return java;
  RegionWalk walk{env, ucontext, anchor, state};
  RegionsFound found;
  // A thread in native code has its anchor read by the VM at any time: it is not walked again.
  const WalkJavaFrom walk_again = state == VmThreadAnchor::State::InNative ? nullptr : walkFromRegionTop;
  const jint between = insertNativeBetween(input, frames, native, java, walk_again, &walk, found);
  // A call into Java installs its handle block before its entry frame exists, while the thread
  // is in Java state running the VM's code: a single region seen then is not the block's.
  if (found.count == 1 && !(state == VmThreadAnchor::State::InJava && !code->contains(regs.pc))) {
    thread.single_region_handles = handles;
  }
  const jint count = between > 0 ? between : java;
  if (!whole || native + count >= kMaxFrames) return count;
  return count + framesBelowRegions(thread, found, *entry, list, count, kMaxFrames - native - count, regs.sp,
                                    walk_again, walk);
}

jint kernelFrames(ThreadSlot& thread, RawFrame* frames) {
  constexpr int kMaxKernelFrames = 64;
  uintptr_t pcs[kMaxKernelFrames];
  const int count = takeKernelCallChain(thread, pcs, kMaxKernelFrames);
  for (int i = 0; i < count; ++i) {
    frames[i] = {kNativeFrameBci, reinterpret_cast<const void*>(i == 0 ? pcs[i] : pcs[i] - 1)};
  }
  return count;
}
#endif

}  // namespace stackscope::agent

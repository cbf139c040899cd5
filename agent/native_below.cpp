#include "agent/native_below.h"

#include <algorithm>

namespace stackscope::agent {

bool belowStillHolds(const NativeFramesBelow& below, const void* outermost_method, uintptr_t interrupted_sp,
                     const StackBounds& stack) {
  if (below.entry_fp == 0 || below.outermost_method != outermost_method) return false;
  for (int32_t i = 0; i < below.words; ++i) {
    const StackWord& word = below.read[i];
    if (!usedStackWord(word.address, interrupted_sp, stack) ||
        *reinterpret_cast<const uintptr_t*>(word.address) != word.value) {
      return false;
    }
  }
  return true;
}

void walkBelow(NativeFramesBelow& below, uintptr_t entry_fp, const void* outermost_method, uintptr_t interrupted_sp,
               const StackBounds& stack, const JavaFrameLayout& layout, const native::UnwindModules* modules) {
  below.entry_fp = 0;
  below.count = 0;
  below.words = 0;
  bool overflow = false;
  // Every word the walks read (each allowed by usedStackWord first), for belowStillHolds.
  const auto read = [&below, &overflow](uintptr_t address) {
    const uintptr_t value = *reinterpret_cast<const uintptr_t*>(address);
    if (below.words < kMaxBelowWords) {
      below.read[below.words++] = {address, value};
    } else {
      overflow = true;
    }
    return value;
  };
  WalkRegisters next_region;
  bool bottom = false;
  if (!regionBelow(entry_fp, interrupted_sp, stack, read, layout, next_region, bottom) || !bottom) return;
  // The entry frame (the call stub's) keeps rbp; the frames below are stepped by their CFI.
  WalkRegisters caller;
  int count = -1;
  if (native::callerByFramePointer({0, entry_fp, entry_fp}, interrupted_sp, stack, read, caller)) {
    count = native::walkToFirstFunction(caller, interrupted_sp, stack, modules, read, below.pcs, kMaxBelowFrames);
  }
  if (overflow) return;
  below.count = std::max(count, 0);
  below.outermost_method = outermost_method;
  below.entry_fp = entry_fp;
}

int32_t framesBelow(const NativeFramesBelow& below, const RawFrame* entry_frame, RawFrame* out, int32_t room) {
  const int32_t total = below.count + (entry_frame ? 1 : 0);
  if (below.entry_fp == 0 || below.count == 0 || total > room) return 0;
  int32_t at = 0;
  if (entry_frame) out[at++] = *entry_frame;
  // Return addresses: one byte back is inside the call, in the calling function.
  for (int32_t i = 0; i < below.count; ++i) {
    out[at++] = {kNativeFrameBci, reinterpret_cast<const void*>(below.pcs[i] - 1)};
  }
  return at;
}

}  // namespace stackscope::agent

#include "agent/native_below.h"

#include <algorithm>

namespace stackscope::agent {

bool belowStillHolds(const NativeFramesBelow& below, const native::UnwindModules* modules, uintptr_t interrupted_sp,
                     const StackBounds& stack) {
  if (below.entry_fp == 0 || below.modules != modules) return false;
  for (int32_t i = 0; i < below.words; ++i) {
    const StackWord& word = below.read[i];
    if (!usedStackWord(word.address, interrupted_sp, stack) ||
        *reinterpret_cast<const uintptr_t*>(word.address) != word.value) {
      return false;
    }
  }
  return true;
}

const BottomCall* endsAtBottomFrame(const NativeFramesBelow& below, const RawFrame* list, int32_t count) {
  for (int32_t i = 0; i < below.calls; ++i) {
    const BottomCall& call = below.bottom[i];
    if (count >= call.entries &&
        std::equal(call.frames, call.frames + call.entries, list + count - call.entries, sameFrame)) {
      return &call;
    }
  }
  return nullptr;
}

void keepBottomFrame(NativeFramesBelow& below, const RawFrame* list, int32_t count) {
  BottomCall& call = below.bottom[below.next_call];
  call.entries = std::min(count, kMaxBottomEntries);
  std::copy(list + count - call.entries, list + count, call.frames);
  below.next_call = (below.next_call + 1) % kMaxBottomCalls;
  below.calls = std::min(below.calls + 1, kMaxBottomCalls);
}

void walkBelow(NativeFramesBelow& below, uintptr_t entry_fp, uintptr_t interrupted_sp, const StackBounds& stack,
               const JavaFrameLayout& layout, const native::UnwindModules* modules) {
  below.entry_fp = 0;
  below.count = 0;
  below.words = 0;
  below.calls = 0;
  below.next_call = 0;
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
  below.modules = modules;
  below.entry_fp = entry_fp;
}

int32_t framesBelow(const NativeFramesBelow& below, const RawFrame* list, int32_t count, const RawFrame* entry_frame,
                    RawFrame* out, int32_t room) {
  const int32_t total = below.count + (entry_frame ? 1 : 0);
  if (below.entry_fp == 0 || below.count == 0 || total > room) return 0;
  const BottomCall* bottom = endsAtBottomFrame(below, list, count);
  if (!bottom) return 0;
  const RawFrame& call = bottom->frames[bottom->entries - 1];
  const auto same_call = [&call](const RawFrame& frame) { return sameFrame(frame, call); };
  if (std::any_of(list, list + count - bottom->entries, same_call)) return 0;
  int32_t at = 0;
  if (entry_frame) out[at++] = *entry_frame;
  // Return addresses: one byte back is inside the call, in the calling function.
  for (int32_t i = 0; i < below.count; ++i) {
    out[at++] = {kNativeFrameBci, reinterpret_cast<const void*>(below.pcs[i] - 1)};
  }
  return at;
}

}  // namespace stackscope::agent

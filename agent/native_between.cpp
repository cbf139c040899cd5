#include "agent/native_between.h"

#include <algorithm>
#include <cstring>

#include "agent/java_regions.h"

namespace stackscope::agent {

namespace {

constexpr int kMaxRegions = 16;
constexpr int kMaxSegmentFrames = 48;   // one segment: call_helper to the JNI function is ~6
constexpr int kMaxBetweenFrames = 128;  // all segments of one stack

// Only called on addresses that usedStackWord allowed.
uintptr_t readStackWord(uintptr_t addr) { return *reinterpret_cast<const uintptr_t*>(addr); }

// The Java regions of a stack, innermost first, and the native frames between region k and
// k + 1: between[segment_end[k - 1], segment_end[k]) (from 0 for k = 0), ready for the slot.
struct Regions {
  int count = 0;
  WalkRegisters top[kMaxRegions];
  int segment_end[kMaxRegions] = {};
  RawFrame between[kMaxBetweenFrames];
};

bool findRegions(const BetweenInput& input, Regions& out, RegionsFound& found) {
  const EntryFrames& entry = *input.entry;
  const auto classify = [&entry](uintptr_t pc) { return entry.classify(pc); };
  const auto in_code_cache = [&entry](uintptr_t pc) { return entry.inCodeCache(pc); };
  RawFrame call_stub;
  const bool call_stub_named = callStubFrame(entry, input.code_regions, call_stub);
  WalkRegisters top = input.top;
  int used = 0;
  for (out.count = 0; out.count < kMaxRegions;) {
    out.top[out.count++] = top;
    uintptr_t entry_fp = 0;
    bool bottom = false;
    WalkRegisters below;
    WalkRegisters called;
    if (!entryFrameOf(top, input.interrupted_sp, input.stack, readStackWord, classify, entry.layout(), entry_fp,
                      called) ||
        !regionBelow(entry_fp, input.interrupted_sp, input.stack, readStackWord, entry.layout(), below, bottom)) {
      return false;
    }
    if (bottom) {
      found.bottom_entry_fp = entry_fp;
      found.bottom_java_frame = called;
      return true;
    }
    if (call_stub_named && used < kMaxBetweenFrames) out.between[used++] = call_stub;
    uintptr_t pcs[kMaxSegmentFrames];
    const int count = nativeFramesBetween(entry_fp, below.sp, input.interrupted_sp, input.stack,
                                          native::loadedUnwindModules(), readStackWord,
                                          in_code_cache, pcs, std::min(kMaxSegmentFrames, kMaxBetweenFrames - used));
    if (count < 0) return false;
    // Return addresses: one byte back is inside the call, in the calling function.
    for (int i = 0; i < count; ++i) out.between[used++] = {kNativeFrameBci, reinterpret_cast<const void*>(pcs[i] - 1)};
    out.segment_end[out.count - 1] = used;
    top = below;
  }
  return false;  // more regions than kept here
}

bool sameFrames(const RawFrame* a, const RawFrame* b, int32_t count) {
  return std::equal(a, a + count, b, sameFrame);
}

// Moves each region's Java frames right to make room for the native frames below it, from the
// outermost region in: a region's new place never starts before its old one, and the frames
// written between two regions lie past what is still to move. Frames past kMaxFrames are cut.
int32_t interleave(RawFrame* frames, int32_t native, const Regions& regions, const int32_t* counts) {
  int32_t new_start[kMaxRegions], old_start[kMaxRegions];
  int32_t position = native, old_position = native;
  for (int k = 0; k < regions.count; ++k) {
    new_start[k] = position;
    old_start[k] = old_position;
    old_position += counts[k];
    position += counts[k];
    if (k + 1 < regions.count) position += regions.segment_end[k] - (k == 0 ? 0 : regions.segment_end[k - 1]);
  }
  const auto kept = [](int32_t at, int32_t length) { return std::max(0, std::min(length, kMaxFrames - at)); };
  for (int k = regions.count - 1; k >= 0; --k) {
    if (k + 1 < regions.count) {
      const int first = k == 0 ? 0 : regions.segment_end[k - 1];
      const int32_t at = new_start[k] + counts[k];
      const int32_t length = kept(at, regions.segment_end[k] - first);
      if (length > 0) std::memcpy(frames + at, regions.between + first, static_cast<size_t>(length) * sizeof(RawFrame));
    }
    const int32_t length = kept(new_start[k], counts[k]);
    if (length > 0) std::memmove(frames + new_start[k], frames + old_start[k], static_cast<size_t>(length) * sizeof(RawFrame));
  }
  return std::min(position, static_cast<int32_t>(kMaxFrames)) - native;
}

// AsyncGetCallTrace's mark of a native method's frame.
constexpr int32_t kNativeMethodBci = -3;

// For a thread in native code: where each region k >= 1 begins in the list, as the first
// frame after the previous region's top of the native method whose wrapper is region k's top
// (region 0's own top may be a native method too: the search starts after it).
bool countByNativeMethods(const BetweenInput& input, const Regions& regions, const RawFrame* list, int32_t java,
                          int32_t* counts) {
  int32_t previous = 0;
  for (int k = 1; k < regions.count; ++k) {
    const void* method = input.entry->compiledMethodAt(regions.top[k].pc);
    if (!method) return false;
    int32_t at = previous + 1;
    while (at < java && (list[at].bci != kNativeMethodBci || list[at].method != method)) ++at;
    if (at >= java) return false;
    counts[k - 1] = at - previous;
    previous = at;
  }
  counts[regions.count - 1] = java - previous;
  return true;
}

// Each region's frames: the list's frames from its top less those from the next one's.
bool countByWalks(const Regions& regions, RawFrame* list, int32_t java, int32_t room, WalkJavaFrom walk,
                  void* walk_data, int32_t* counts) {
  int32_t above = java;  // frames from the previous region's top
  for (int k = 1; k < regions.count; ++k) {
    const int32_t from_top = listFramesFrom(regions.top[k], list, java, room, walk, walk_data);
    if (from_top <= 0 || from_top >= above) return false;
    counts[k - 1] = above - from_top;
    above = from_top;
  }
  counts[regions.count - 1] = above;
  return true;
}

}  // namespace

bool callStubFrame(const EntryFrames& entry, const CodeRegions* code_regions, RawFrame& frame) {
  const int32_t call_stub = code_regions ? code_regions->find(entry.callStubReturn() - 1) : -1;
  if (call_stub < 0) return false;
  frame = {kStubFrameBci, reinterpret_cast<const void*>(static_cast<uintptr_t>(call_stub) + 1)};
  return true;
}

int32_t listFramesFrom(const WalkRegisters& top, RawFrame* list, int32_t java, int32_t room, WalkJavaFrom walk,
                       void* walk_data) {
  RawFrame* const scratch = list + java;
  const int32_t from_top = walk(top, scratch, room, walk_data);
  // A walk that filled the room may have been cut; one that does not end as the list does
  // did not start at a frame of this stack.
  if (from_top <= 0 || from_top >= room || from_top > java || !sameFrames(scratch, list + java - from_top, from_top)) {
    return -1;
  }
  return from_top;
}

int32_t insertNativeBetween(const BetweenInput& input, RawFrame* frames, int32_t native, int32_t java,
                            WalkJavaFrom walk, void* walk_data, RegionsFound& found) {
  found = {};
  Regions regions;
  if (!findRegions(input, regions, found)) {
    found = {};
    return 0;
  }
  found.count = regions.count;
  if (regions.count < 2) return 0;
  int32_t counts[kMaxRegions];
  const bool counted = walk ? countByWalks(regions, frames + native, java, kMaxFrames - native - java, walk, walk_data, counts)
                            : countByNativeMethods(input, regions, frames + native, java, counts);
  if (!counted) return 0;
  return interleave(frames, native, regions, counts);
}

}  // namespace stackscope::agent

// What the samplers hand to the writer thread through the ring: one slot per captured stack,
// or one slot listing idle threads whose previous stack is repeated (wall mode).
#pragma once

#include <cstddef>
#include <cstdint>

#include "agent/mpsc_ring.h"

namespace stackscope::agent {

// Deeper stacks keep their innermost kMaxFrames frames.
inline constexpr int kMaxFrames = 512;

// Same layout as AsyncGetCallTrace's frame {jint lineno; jmethodID method_id;} so the stack
// walk writes straight into the slot (java_stack_walk.cpp checks this with static_asserts).
struct RawFrame {
  int32_t bci;         // AsyncGetCallTrace puts the bytecode index here for Java frames
  const void* method;  // jmethodID
};

// Field by field: the padding inside a RawFrame is whatever the slot held before.
inline bool sameFrame(const RawFrame& a, const RawFrame& b) { return a.bci == b.bci && a.method == b.method; }

// A frame the stack capture adds for generated code that is not a Java method (a stub,
// code_regions.h): its `method` holds the region's index + 1 instead of a jmethodID.
// AsyncGetCallTrace never writes this bci.
inline constexpr int32_t kStubFrameBci = INT32_MIN;
// A native frame (mixed mode, native_threads.h): `method` holds a code address, the pc of the
// innermost frame or a return address minus one (inside the call), symbolized by the writer.
inline constexpr int32_t kNativeFrameBci = INT32_MIN + 1;

struct RepeatEntry {
  uint32_t thread;
  uint32_t annotation;  // the thread's annotation now (it may have changed without running much)
  uint8_t state;        // format::ThreadState
  uint16_t weight;      // ticks the repeat stands for (idle_backoff.h), in the padding
};
static_assert(sizeof(RepeatEntry) == 12);

enum class SlotKind : uint8_t {
  Stack,   // frames[0, count) of `thread`, innermost first
  Repeat,  // repeats[0, count): each thread again with the last stack captured for it
  Skip,    // claimed but the stack walk failed (already counted as lost): ignore
};

struct SampleSlot {
  int64_t time_ns;  // since the recording's time 0
  uint32_t thread;      // registry id (Stack slots)
  uint32_t annotation;  // the thread's annotation id at the sample (Stack slots)
  uint8_t state;        // format::ThreadState (Stack slots)
  SlotKind kind;
  uint16_t count;
  uint32_t weight;      // ticks the stack stands for (Stack slots; wall_pending.h)
  uint32_t carrier;     // Stack slots of a virtual thread: the carrier's registry id, else 0
  uint64_t cpu_us;      // Stack slots: the thread's metric deltas since its previous sample (thread_metrics.h)
  uint64_t alloc_bytes;
  union {
    RawFrame frames[kMaxFrames];
    RepeatEntry repeats[kMaxFrames * sizeof(RawFrame) / sizeof(RepeatEntry)];
  };
};

inline constexpr size_t kMaxRepeats = sizeof(SampleSlot::repeats) / sizeof(RepeatEntry);

using SampleRing = MpscRing<SampleSlot>;

}  // namespace stackscope::agent

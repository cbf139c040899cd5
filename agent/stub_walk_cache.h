// A thread blocked in the VM for a contended monitor (_thread_blocked: HotSpot's
// ObjectMonitor::EnterI spins and parks in that state) is walked from its frame anchor, which
// holds the C2 runtime stub it entered the VM through; AsyncGetCallTrace cannot step from
// there to the Java caller (vm_thread_anchor.h), and the anchor may not be pointed at the
// caller for the walk as it is for a thread in the VM: other threads may be walking this
// blocked one from it. Up to 13 % of a contended workload's samples were lost so.
//
// Its Java frames are the ones a walk from the stub found for the same stack: before it
// blocks, the thread spins, in the VM (ObjectMonitor::enter's TrySpin) before HotSpot 24 and
// in the stub's call still in Java state from 24 on, and a loop that takes a lock enters it
// from the same frames every time. Each thread keeps the frames of its last walk from a
// runtime stub, in the VM or in the stub's call, and the chain of physical frames they were
// walked from (own_frame_chain.h; in Java state its own signal handler reads the chain: the
// thread is neither leaving the stub's call nor at a safepoint meanwhile, so nothing moves its
// frames). A blocked sample whose chain is the same takes those frames: the chain
// names every frame exactly (a compiled frame's pc and compile id, an interpreted frame's
// method and bci), so they are the thread's frames. Nothing is written but the cache.
#pragma once

#include <jni.h>

#include <cstdint>

#include "agent/sample_slot.h"

namespace stackscope::agent {

struct ThreadSlot;

// One per thread, read and written by its own signal handler only.
struct StubWalkCache {
  static constexpr int kKeptFrames = 128;  // a deeper walk is not kept
  uint64_t chain_hash = 0;                // 0: nothing kept
  int32_t count = 0;
  RawFrame frames[kKeptFrames];
};

// After a walk from a runtime stub of the calling thread, in the VM or in the stub's call
// still in Java state (`in_java`: HotSpot 24+ spins for a monitor there, before it enters the VM
// and blocks): keeps frames[0, count) under the thread's chain. Async-signal-safe.
void rememberStubWalk(JNIEnv* env, ThreadSlot& slot, const RawFrame* frames, int count, bool in_java);

// For the calling thread (blocked in the VM): the frames kept under its chain, copied into out
// (at most depth); 0 when it has no chain or another. Async-signal-safe.
int recallStubWalk(JNIEnv* env, const ThreadSlot& slot, RawFrame* out, int depth);

}  // namespace stackscope::agent

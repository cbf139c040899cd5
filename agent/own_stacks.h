// The calling thread's own stack in a JVMTI callback where AsyncGetCallTrace cannot walk it (a
// compiled monitor enter waits in C2's runtime stub, jvmti_stack.h; a compiled allocation's slow
// path calls the VM from one too): GetStackTrace, the VM's
// own walk (8.7-12 µs on LockContention, docs/benchmarks.md), only the first time a chain of
// physical frames is seen. The thread reads its chain from its own stack (own_frame_chain.h,
// about as costly as a few code-cache look-ups) and the memo (stack_memo.h) gives the frames
// GetStackTrace gave for that chain before. A chain not read (a frame not known there) is
// walked by GetStackTrace every time.
//
// For tests: with the environment variable STACKSCOPE_CHECK_OWN_STACKS=1 in the profiled
// process, every memo hit also takes GetStackTrace and compares the two; the counts are said
// at the recording's end (a warning in the recording and on stderr: writer_traces.cpp).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/sample_slot.h"
#include "agent/stack_memo.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

inline constexpr const char* kCheckOwnStacksVariable = "STACKSCOPE_CHECK_OWN_STACKS";

class OwnStacks {
 public:
  OwnStacks();

  // Reads the calling thread's chain (`slot` its own) as its wait that began at `wait_start`
  // begins, and keeps it for that wait's stack: at the start of a monitor enter the thread has
  // just run those frames and its reads hit the cache (a chain read again at once cost a tenth
  // of one read after the wake, docs/benchmarks.md), and it does not hold the monitor (at its end it does, and every µs
  // there lengthens the critical section others wait for). The stack does not change during
  // the wait. In a JVMTI callback only.
  void readChainAtStart(JNIEnv* jni, const ThreadSlot& slot, int64_t wait_start);
  // The stack of the calling thread (`slot` its own; null for a thread with none, which
  // GetStackTrace walks), innermost first, into `out` (room for kMaxFrames); its count, 0 when
  // the VM cannot give it. From the chain kept for the wait that began at `wait_start`, else
  // (or for 0: no wait, an allocation) one read now. In a JVMTI callback only.
  size_t stackInto(jvmtiEnv* jvmti, JNIEnv* jni, const ThreadSlot* slot, int64_t wait_start, RawFrame* out);
  std::vector<RawFrame> stack(jvmtiEnv* jvmti, JNIEnv* jni, const ThreadSlot* slot, int64_t wait_start);

  bool checking() const { return check_; }
  // What happened so far, for the recording's end: "N stacks: H from the memo, ..." (empty
  // when no stack was asked for).
  std::string summary() const;
  uint64_t mismatches() const { return mismatches_.load(std::memory_order_relaxed); }

 private:
  StackMemo memo_;
  const bool check_;
  std::atomic<uint64_t> hits_{0};        // from the memo
  std::atomic<uint64_t> walked_{0};      // GetStackTrace for a chain not in the memo yet
  std::atomic<uint64_t> unchained_{0};   // GetStackTrace, no chain read
  std::atomic<uint64_t> compared_{0};    // checking: hits compared with GetStackTrace
  std::atomic<uint64_t> mismatches_{0};  // checking: those that differed
};

}  // namespace stackscope::agent

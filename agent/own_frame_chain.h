// The chain of physical frames of the calling thread's Java stack, read by the thread itself in
// a JVMTI callback: the key of the traces' stack memo (stack_memo.h, own_stacks.h); also read
// in its own signal handler, in the VM or in a runtime stub's call (stub_walk_cache.h, and the
// rules at readOwnFrameChain below).
//
// In a callback the thread is in native code (_thread_in_native) and its frame anchor holds
// its last Java frame (vm_thread_anchor.h): the walk starts there and steps frame by frame as
// HotSpot's frame::sender does on x86-64 (the steps of java_regions.h's entryFrameOf), up to
// the call stub's entry frame. Each frame is named by what decides the frames GetStackTrace
// gives for it, with identities the VM never hands to other code:
//   a compiled method's frame   its pc and the nmethod's compile id (unique for the process:
//                               code freed and its address reused by another compilation has
//                               another id; the inlined methods at pc are fixed by the two)
//   an interpreted frame        its method's jmethodID (never freed; one whose class was
//                               unloaded and the id reused names the new method, as the frame
//                               does) and its bytecode index, read from the frame's Method* and
//                               bcp slots
//   a runtime stub (top only)   its pc (compiled code enters a contended monitor through one)
// So an entry of the memo never goes stale: a class unloaded, a method redefined (its compiled
// frames deoptimized: their return addresses then point into the deoptimization blob, which
// this walk does not know), or code freed gives other chains, never a chain some other stack
// had. Anything else gives no chain (the caller then asks GetStackTrace): a frame of another
// kind, an entry frame with earlier Java frames below it (native code that called into Java,
// a class loader's), a stack deeper than kMaxChainFrames, a word outside the thread's used
// stack, a method without a jmethodID yet.
//
// SAFETY: the thread reads only its own stack, between its current sp and its base (the
// slot's bounds, every word checked by usedStackWord), and the VM's structures of code that
// is running on it: the code cache (compiled_code.h) and the Method and ConstMethod of an
// interpreted frame (alive while their frame is on the stack), as HotSpot's own walk of this
// thread would read them. Nothing is written. In native the thread's frames do not move: a
// safepoint may patch a compiled frame's return address to deoptimize it (read whole, as an
// aligned word), which gives no chain.
#pragma once

#include <jni.h>

#include <cstdint>
#include <string_view>

#include "agent/sample_slot.h"
#include "agent/thread_registry.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

struct FrameChain {
  static constexpr int kMaxChainFrames = 128;  // deeper stacks take GetStackTrace's walk
  uint64_t words[2 * kMaxChainFrames];
  int size = 0;  // in words, two a frame
  std::string_view bytes() const { return {reinterpret_cast<const char*>(words), size * sizeof(uint64_t)}; }
};

// The layout of interpreted frames and methods the chain needs beyond what the stack capture
// binds (compiled_code.h, entry_frames.h, vm_thread_anchor.h), from the VM's tables.
class InterpretedFrames {
 public:
  // False when this VM's layout is not the one known here (then no chain is read).
  bool bind(const VmStructs& vm);

  // The Method* and bcp slots of an interpreted frame, in words from its fp.
  int64_t methodWords() const { return method_words_; }
  int64_t bcpWords() const { return bcp_words_; }
  // The bytecode index of `bcp` in `method` (a Method* of a frame on the calling thread's
  // stack), -1 for a native method's frame (no bcp); false when bcp is not in its code.
  bool bciOf(uintptr_t method, uintptr_t bcp, int32_t& bci) const;

 private:
  int64_t method_words_ = 0, bcp_words_ = 0;
  int64_t const_method_ = -1, code_size_ = -1;
  uint64_t const_method_size_ = 0;
};

// Binds the layouts at VMInit (vm_bindings.cpp): the chain is read only once this is set.
void setInterpretedFrames(const InterpretedFrames* frames, int64_t compile_id_offset);

// The calling thread's chain (`slot` its own), in a JVMTI callback, or in its signal handler
// while it is in the VM or blocked there (stub_walk_cache.h); false when there is none.
// `in_runtime_call`: the signal handler's caller knows the thread, in Java state, is in a call
// from a runtime stub that set its anchor (HotSpot 24+ spins for a monitor so, before entering
// the VM): the anchor is taken then too. That caller must have checked it (walkFromRuntimeStub:
// the anchor's pc in a blob that is no compiled method, its caller a compiled method), since
// in Java state an anchor may also be the deoptimization blob's, whose frames are being
// rewritten; in the stub's call the thread's own handler runs while nothing moves its frames
// (it neither returns from the call nor stops at a safepoint before the handler ends).
bool readOwnFrameChain(JNIEnv* jni, const ThreadSlot& slot, FrameChain& chain, bool in_runtime_call = false);

}  // namespace stackscope::agent

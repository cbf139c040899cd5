// See own_frame_chain.h.
#include "agent/own_frame_chain.h"

#include <atomic>
#include <cstring>

#include "agent/java_regions.h"
#include "agent/java_stack_walk.h"

namespace stackscope::agent {

namespace {

std::atomic<const InterpretedFrames*> g_interpreted{nullptr};
int64_t g_compile_id_offset = -1;  // nmethod::_compile_id, set before g_interpreted

// Tags in a frame's second word: which kind of frame the pair names.
constexpr uint64_t kCompiledTag = uint64_t{1} << 62;
constexpr uint64_t kInterpretedTag = uint64_t{2} << 62;
constexpr uint64_t kStubTag = uint64_t{3} << 62;

template <typename T>
T load(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof value);
  return value;
}

}  // namespace

bool InterpretedFrames::bind(const VmStructs& vm) {
  // HotSpot's x86-64 interpreter frame below its fp: sender sp (-1), last sp (-2), Method*
  // (-3), mirror, mdp, cache, locals, bcp (-8). Only the first two are exported: the rest is
  // taken as known from them, and only when they are where this layout has them.
  int32_t sender_sp = 0, last_sp = 0;
  if (!vm.intConstant("frame::interpreter_frame_sender_sp_offset", sender_sp) ||
      !vm.intConstant("frame::interpreter_frame_last_sp_offset", last_sp) || sender_sp != -1 || last_sp != -2) {
    return false;
  }
  method_words_ = -3;
  bcp_words_ = -8;
  const_method_ = vm.fieldOffset("Method", "_constMethod");
  code_size_ = vm.fieldOffset("ConstMethod", "_code_size");
  const_method_size_ = vm.typeSize("ConstMethod");  // the bytecodes follow the ConstMethod
  return const_method_ >= 0 && code_size_ >= 0 && vm.fieldSize("ConstMethod", "_code_size") == 2 &&
         const_method_size_ > 0;
}

bool InterpretedFrames::bciOf(uintptr_t method, uintptr_t bcp, int32_t& bci) const {
  if (bcp == 0) {  // a native method's frame keeps no bcp
    bci = -1;
    return true;
  }
  const auto const_method = load<uintptr_t>(method + static_cast<uintptr_t>(const_method_));
  if (const_method == 0 || const_method % 8 != 0) return false;
  const uintptr_t code = const_method + const_method_size_;
  const uint16_t size = load<uint16_t>(const_method + static_cast<uintptr_t>(code_size_));
  if (bcp < code || bcp >= code + size) return false;
  bci = static_cast<int32_t>(bcp - code);
  return true;
}

void setInterpretedFrames(const InterpretedFrames* frames, int64_t compile_id_offset) {
  g_compile_id_offset = compile_id_offset;
  g_interpreted.store(frames, std::memory_order_release);
}

bool readOwnFrameChain(JNIEnv* jni, const ThreadSlot& slot, FrameChain& chain, bool in_runtime_call) {
  chain.size = 0;
#if defined(__x86_64__)
  const InterpretedFrames* interpreted = g_interpreted.load(std::memory_order_acquire);
  const CompiledCode* code = boundCompiledCode();
  const VmThreadAnchor* anchor = boundVmThreadAnchor();
  const EntryFrames* entry = boundEntryFrames();
  if (!interpreted || !code || !anchor || !entry || slot.foreign || !slot.stack_ready.load(std::memory_order_acquire)) {
    return false;
  }
  // The used stack begins at this function's frame: every word read lies between it and the base.
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  const StackBounds& stack = slot.stack;
  const auto read = [](uintptr_t address) { return load<uintptr_t>(address); };
  const auto used = [&](uintptr_t address) { return usedStackWord(address, here, stack); };
  WalkRegisters frame;
  VmThreadAnchor::State state;
  // In native the anchor is complete and only this thread changes it (on its way back to Java);
  // in the VM (a signal handler's case: stub_walk_cache.h) it is the thread's own, and blocked
  // there it is complete and read by others. In Java the frames change under the walk, but in a
  // runtime stub's call, which does not return while its own signal handler runs.
  const bool anchored = anchor->lastJavaFrame(jni, here, stack, frame, state) &&
                        (state != VmThreadAnchor::State::InJava || in_runtime_call);
  if (!anchored && !anchor->blockedJavaFrame(jni, here, stack, frame)) return false;
  const auto push = [&](uint64_t first, uint64_t second) {
    chain.words[chain.size++] = first;
    chain.words[chain.size++] = second;
  };
  const JavaFrameLayout& layout = entry->layout();
  for (int frames = 0; frames < FrameChain::kMaxChainFrames; ++frames) {
    WalkRegisters caller;
    CompiledMethodCode method;
    if (frame.pc == entry->callStubReturn()) {
      // The entry frame: the chain is whole when nothing but native code lies below it.
      WalkRegisters below;
      bool bottom = false;
      if (!used(frame.fp) || frame.fp < frame.sp ||
          !regionBelow(frame.fp, here, stack, read, layout, below, bottom)) {
        return false;
      }
      return bottom && chain.size > 0;
    }
    if (entry->inInterpreter(frame.pc)) {
      const uintptr_t method_slot = frame.fp + static_cast<uintptr_t>(interpreted->methodWords() * 8);
      const uintptr_t bcp_slot = frame.fp + static_cast<uintptr_t>(interpreted->bcpWords() * 8);
      const uintptr_t sender_sp_slot = frame.fp + static_cast<uintptr_t>(layout.sender_sp_words * 8);
      if (frame.fp < frame.sp || !used(frame.fp) || !used(frame.fp + 8) || !used(sender_sp_slot) ||
          !used(method_slot) || !used(bcp_slot) || method_slot < frame.sp || bcp_slot < frame.sp) {
        return false;
      }
      const uintptr_t method = read(method_slot);
      int32_t bci = 0;
      // A Method* is metadata, never on the stack.
      if (method == 0 || method % 8 != 0 || (method >= stack.low && method < stack.base) ||
          !interpreted->bciOf(method, read(bcp_slot), bci)) {
        return false;
      }
      const void* id = code->methodId(reinterpret_cast<const void*>(method));
      if (!id) return false;
      push(reinterpret_cast<uintptr_t>(id), kInterpretedTag | static_cast<uint32_t>(bci));
      caller = {read(frame.fp + 8), read(sender_sp_slot), read(frame.fp)};
      if (caller.sp <= frame.fp) return false;
    } else if (code->find(frame.pc, method)) {
      // One look-up of the code cache for a compiled frame, after the cheap tests above.
      if (!callerOfStubFrame(frame, method.frame_words, here, stack, read, caller)) return false;
      push(frame.pc, kCompiledTag | load<uint32_t>(method.blob + static_cast<uintptr_t>(g_compile_id_offset)));
    } else if (CodeBlobFrame stub; frames == 0 && code->findBlob(frame.pc, stub)) {
      // The runtime stub the thread called the VM from (compiled code enters a contended
      // monitor through one). Below the top, a blob that is not a compiled method is a
      // deoptimized frame's return address or an adapter: not known here.
      if (!callerOfStubFrame(frame, stub.frame_words, here, stack, read, caller)) return false;
      push(frame.pc, kStubTag);
    } else {
      return false;
    }
    if (caller.sp <= frame.sp) return false;  // the walk must climb the stack
    frame = caller;
  }
  return false;
#else
  (void)jni;
  (void)slot;
  return false;
#endif
}

}  // namespace stackscope::agent

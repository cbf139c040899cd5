#include "agent/vm_thread_anchor.h"

#include <atomic>

namespace stackscope::agent {

namespace {

// A JavaThread is a few kilobytes; its JNIEnv lies inside it.
constexpr int64_t kMaxEnvOffset = 1 << 16;

}  // namespace

int64_t jniEnvOffset(JNIEnv* jni, jobject thread) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (!thread_class) {
    jni->ExceptionClear();
    return 0;
  }
  jfieldID eetop = jni->GetFieldID(thread_class, "eetop", "J");
  jni->DeleteLocalRef(thread_class);
  if (!eetop) {
    jni->ExceptionClear();
    return 0;
  }
  const auto java_thread = static_cast<uintptr_t>(jni->GetLongField(thread, eetop));
  const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(jni) - java_thread);
  if (java_thread == 0 || offset <= 0 || offset > kMaxEnvOffset || offset % 8 != 0) return 0;
  return offset;
}

bool VmThreadAnchor::bind(const VmStructs& vm, int64_t env_offset) {
  bound_ = false;
  env_offset_ = env_offset;
  const int64_t anchor = vm.fieldOffset("JavaThread", "_anchor");
  const int64_t anchor_sp = vm.fieldOffset("JavaFrameAnchor", "_last_Java_sp");
  const int64_t anchor_fp = vm.fieldOffset("JavaFrameAnchor", "_last_Java_fp");
  const int64_t anchor_pc = vm.fieldOffset("JavaFrameAnchor", "_last_Java_pc");
  state_ = vm.fieldOffset("JavaThread", "_thread_state");
  if (env_offset_ <= 0 || anchor < 0 || anchor_sp < 0 || anchor_fp < 0 || anchor_pc < 0 || state_ < 0 ||
      vm.fieldSize("JavaThread", "_thread_state") != 4 || !vm.intConstant("_thread_in_vm", in_vm_) ||
      !vm.intConstant("_thread_in_Java", in_java_)) {
    return false;
  }
  if (!vm.intConstant("_thread_in_native", in_native_)) in_native_ = -1;
  if (!vm.intConstant("_thread_blocked", blocked_)) blocked_ = -1;
  if (!vm.intConstant("_thread_blocked_trans", blocked_trans_)) blocked_trans_ = -1;
  if (!vm.intConstant("_thread_in_vm_trans", in_vm_trans_)) in_vm_trans_ = -1;
  anchor_sp_ = anchor + anchor_sp;
  anchor_fp_ = anchor + anchor_fp;
  anchor_pc_ = anchor + anchor_pc;
  bound_ = true;
  return true;
}

bool VmThreadAnchor::makeWalkable(JNIEnv* env, uintptr_t sp, const StackBounds& stack) const {
  if (!bound_ || !env) return false;
  const uintptr_t thread = javaThreadOf(env);
  const int32_t state = *reinterpret_cast<const volatile int32_t*>(thread + state_);
  if (state != in_vm_ && state != in_vm_trans_) return false;
  // The anchor is the thread's own: the interrupted code may be writing it, never another
  // thread. Volatile accesses, so each field is read and written once, in this order.
  auto* last_sp = reinterpret_cast<volatile uintptr_t*>(thread + anchor_sp_);
  auto* last_pc = reinterpret_cast<volatile uintptr_t*>(thread + anchor_pc_);
  const uintptr_t saved_sp = *last_sp;
  if (saved_sp == 0 || *last_pc != 0 || !usedStackWord(saved_sp - 8, sp, stack)) return false;
  const uintptr_t return_address = *reinterpret_cast<const uintptr_t*>(saved_sp - 8);
  if (return_address == 0) return false;
  *last_pc = return_address;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  return true;
}

bool VmThreadAnchor::lastJavaFrame(JNIEnv* env, uintptr_t sp, const StackBounds& stack, WalkRegisters& frame,
                                   State& state) const {
  if (!bound_ || !env) return false;
  const uintptr_t thread = javaThreadOf(env);
  const int32_t value = stateOf(thread);
  state = value == in_vm_       ? State::InVm
          : value == in_java_   ? State::InJava
          : value == in_native_ ? State::InNative
                                : State::Other;
  return state != State::Other && readAnchor(thread, sp, stack, frame);
}

bool VmThreadAnchor::blockedJavaFrame(JNIEnv* env, uintptr_t sp, const StackBounds& stack, WalkRegisters& frame) const {
  if (!bound_ || !env) return false;
  const uintptr_t thread = javaThreadOf(env);
  const int32_t state = stateOf(thread);
  return state >= 0 && (state == blocked_ || state == blocked_trans_ || state == in_vm_trans_) &&
         readAnchor(thread, sp, stack, frame);
}

bool VmThreadAnchor::readAnchor(uintptr_t thread, uintptr_t sp, const StackBounds& stack, WalkRegisters& frame) const {
  // The anchor is set fp and pc first, sp last, and cleared sp first: with an sp, the other
  // two are the ones set with it (or the pc still to be computed).
  const uintptr_t last_sp = *reinterpret_cast<const volatile uintptr_t*>(thread + anchor_sp_);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const uintptr_t last_fp = *reinterpret_cast<const volatile uintptr_t*>(thread + anchor_fp_);
  uintptr_t last_pc = *reinterpret_cast<const volatile uintptr_t*>(thread + anchor_pc_);
  if (last_sp == 0 || !usedStackWord(last_sp - 8, sp, stack)) return false;
  if (last_pc == 0) last_pc = *reinterpret_cast<const uintptr_t*>(last_sp - 8);
  if (last_pc == 0) return false;
  frame = {last_pc, last_sp, last_fp};
  return true;
}

}  // namespace stackscope::agent

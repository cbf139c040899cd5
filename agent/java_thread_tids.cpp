#include "agent/java_thread_tids.h"

#include <sys/uio.h>
#include <unistd.h>

namespace stackscope::agent {

namespace {

// Reads `size` bytes at `addr` of this process without the risk of a fault.
bool readOwnMemory(uintptr_t addr, void* out, size_t size) {
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(addr), size};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

}  // namespace

bool JavaThreadTids::bind(const VmStructs& vm, JNIEnv* jni) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (!thread_class) {
    jni->ExceptionClear();
    return false;
  }
  eetop_ = jni->GetFieldID(thread_class, "eetop", "J");
  if (!eetop_) jni->ExceptionClear();
  jni->DeleteLocalRef(thread_class);
  // Listed under JavaThread by some JDKs (17), under its base Thread by others.
  os_thread_offset_ = vm.fieldOffset("JavaThread", "_osthread");
  if (os_thread_offset_ < 0) os_thread_offset_ = vm.fieldOffset("Thread", "_osthread");
  thread_id_offset_ = vm.fieldOffset("OSThread", "_thread_id");
  thread_id_size_ = vm.fieldSize("OSThread", "_thread_id");
  if (thread_id_size_ == 0) thread_id_size_ = sizeof(pid_t);  // a table without type strings
  for (const char* type : {"Thread", "JavaThread"}) {
    if (stack_base_offset_ < 0) stack_base_offset_ = vm.fieldOffset(type, "_stack_base");
    if (stack_size_offset_ < 0) stack_size_offset_ = vm.fieldOffset(type, "_stack_size");
  }
  return eetop_ && os_thread_offset_ >= 0 && thread_id_offset_ >= 0 &&
         (thread_id_size_ == sizeof(int32_t) || thread_id_size_ == sizeof(int64_t));
}

uintptr_t JavaThreadTids::javaThreadOf(JNIEnv* jni, jthread thread) const {
  return eetop_ ? static_cast<uintptr_t>(jni->GetLongField(thread, eetop_)) : 0;  // 0: not started, or exited
}

StackBounds JavaThreadTids::stackOf(JNIEnv* jni, jthread thread) const {
  const uintptr_t java_thread = javaThreadOf(jni, thread);
  if (java_thread == 0 || stack_base_offset_ < 0 || stack_size_offset_ < 0) return {};
  uintptr_t base = 0;
  uint64_t size = 0;
  if (!readOwnMemory(java_thread + stack_base_offset_, &base, sizeof base) ||
      !readOwnMemory(java_thread + stack_size_offset_, &size, sizeof size) || size == 0 || size > base) {
    return {};
  }
  return {base - size, base};
}

pid_t JavaThreadTids::tidOf(JNIEnv* jni, jthread thread) const {
  if (os_thread_offset_ < 0 || thread_id_offset_ < 0) return 0;
  const uintptr_t java_thread = javaThreadOf(jni, thread);
  if (java_thread == 0) return 0;
  uintptr_t os_thread = 0;
  if (!readOwnMemory(java_thread + os_thread_offset_, &os_thread, sizeof os_thread) || os_thread == 0) return 0;
  int64_t tid = 0;
  if (thread_id_size_ == sizeof(int32_t)) {
    int32_t narrow = 0;
    if (!readOwnMemory(os_thread + thread_id_offset_, &narrow, sizeof narrow)) return 0;
    tid = narrow;
  } else if (!readOwnMemory(os_thread + thread_id_offset_, &tid, sizeof tid)) {
    return 0;
  }
  return tid > 0 && tid <= INT32_MAX ? static_cast<pid_t>(tid) : 0;
}

}  // namespace stackscope::agent

#include "agent/monitor_owner_words.h"

#include <atomic>

#include "agent/lock_trace.h"

namespace stackscope::agent {

namespace {

std::atomic<const MonitorOwnerWords*> g_words{nullptr};

template <typename T>
T load(uintptr_t address) {
  return *reinterpret_cast<const volatile T*>(address);
}

}  // namespace

bool MonitorOwnerWords::bind(const VmStructs& vm, int64_t env_offset) {
#if defined(__x86_64__)
  env_offset_ = env_offset;
  pending_monitor_ = vm.fieldOffset("JavaThread", "_current_pending_monitor");
  owner_ = vm.fieldOffset("ObjectMonitor", "_owner");
  owner_is_thread_id_ = vm.fieldOffset("JavaThread", "_monitor_owner_id") >= 0;
  // The owner is a pointer before HotSpot 24 (its type, void*, has no size in the tables),
  // an int64_t id after: either way one aligned word.
  const uint64_t owner_size = vm.fieldSize("ObjectMonitor", "_owner");
  return env_offset_ > 0 && pending_monitor_ >= 0 && owner_ >= 0 && owner_ % 8 == 0 &&
         vm.fieldSize("JavaThread", "_current_pending_monitor") == 8 && (owner_size == 0 || owner_size == 8);
#else
  (void)vm;
  (void)env_offset;
  return false;
#endif
}

uintptr_t MonitorOwnerWords::javaThreadOf(const ThreadSlot& slot) const {
  return reinterpret_cast<uintptr_t>(slot.env) - static_cast<uintptr_t>(env_offset_);
}

uint64_t MonitorOwnerWords::ownerWord(const ThreadSlot& waiter, int64_t start_ns) const {
  const auto waits = [&] {
    return waiter.wait_start_ns.load(std::memory_order_acquire) == start_ns &&
           waiter.wait_source.load(std::memory_order_acquire) == static_cast<uint8_t>(WaitSource::MonitorEnter);
  };
  if (waiter.foreign || !waiter.env || start_ns == 0 || !waits()) return 0;
  const auto monitor = load<uintptr_t>(javaThreadOf(waiter) + static_cast<uintptr_t>(pending_monitor_));
  if (monitor == 0 || monitor % 8 != 0) return 0;
  const auto word = load<uint64_t>(monitor + static_cast<uintptr_t>(owner_));
  std::atomic_thread_fence(std::memory_order_acquire);
  return waits() ? word : 0;
}

uint64_t MonitorOwnerWords::ownOwnerWord(JNIEnv* jni) const {
  const uintptr_t thread = reinterpret_cast<uintptr_t>(jni) - static_cast<uintptr_t>(env_offset_);
  const auto monitor = load<uintptr_t>(thread + static_cast<uintptr_t>(pending_monitor_));
  if (monitor == 0 || monitor % 8 != 0) return 0;
  return load<uint64_t>(monitor + static_cast<uintptr_t>(owner_));
}

bool MonitorOwnerWords::names(uint64_t word, const ThreadSlot& slot) const {
  if (word == 0 || slot.foreign || !slot.env) return false;
  if (owner_is_thread_id_) return slot.java_id != 0 && static_cast<uint64_t>(slot.java_id) == word;
  if (word == javaThreadOf(slot)) return true;
  // A lock record in the owner's stack (the lock was inflated while held there).
  return slot.stack_ready.load(std::memory_order_acquire) && slot.stack.low < slot.stack.base &&
         word >= slot.stack.low && word < slot.stack.base;
}

void setMonitorOwnerWords(const MonitorOwnerWords* words) { g_words.store(words, std::memory_order_release); }
const MonitorOwnerWords* boundMonitorOwnerWords() { return g_words.load(std::memory_order_acquire); }

}  // namespace stackscope::agent

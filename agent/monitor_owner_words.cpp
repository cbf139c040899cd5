#include "agent/monitor_owner_words.h"

#include <algorithm>
#include <atomic>

#include "agent/lock_trace.h"

namespace stackscope::agent {

namespace {

std::atomic<const MonitorOwnerWords*> g_words{nullptr};

template <typename T>
T load(uintptr_t address) {
  return *reinterpret_cast<const volatile T*>(address);
}

constexpr uint64_t kLockStackSize = 80;
constexpr int64_t kLockStackBase = 16;  // _base within LockStack
constexpr uint64_t kAnonymousOwner = 1;  // HotSpot 24+'s ObjectMonitor::ANONYMOUS_OWNER; ids start at 3

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
  // The lock stack's layout as HotSpot 24 and 25 have it (LockStack: uint32_t _top, the next
  // free entry as an offset from the JavaThread; a sentinel word; oop _base[8]): its size and
  // _top's place are in the tables, _base's not. Any other layout: no lock-stack look.
  object_ = vm.fieldOffset("ObjectMonitor", "_object");
  lock_stack_ = vm.fieldOffset("JavaThread", "_lock_stack");
  if (!owner_is_thread_id_ || object_ < 0 || vm.typeSize("LockStack") != kLockStackSize ||
      vm.fieldOffset("LockStack", "_top") != 0 || vm.fieldSize("LockStack", "_top") != 4) {
    lock_stack_ = -1;
  }
  return env_offset_ > 0 && pending_monitor_ >= 0 && owner_ >= 0 && owner_ % 8 == 0 &&
         vm.fieldSize("JavaThread", "_current_pending_monitor") == 8 && (owner_size == 0 || owner_size == 8);
#else
  (void)vm;
  (void)env_offset;
  return false;
#endif
}

uintptr_t MonitorOwnerWords::javaThreadOf(JNIEnv* env) const {
  return reinterpret_cast<uintptr_t>(env) - static_cast<uintptr_t>(env_offset_);
}

uintptr_t MonitorOwnerWords::pendingMonitor(uintptr_t thread) const {
  const auto monitor = load<uintptr_t>(thread + static_cast<uintptr_t>(pending_monitor_));
  return monitor % 8 == 0 ? monitor : 0;
}

bool MonitorOwnerWords::waitsToEnter(const ThreadSlot& waiter, int64_t start_ns) {
  return start_ns != 0 && waiter.wait_start_ns.load(std::memory_order_acquire) == start_ns &&
         waiter.wait_source.load(std::memory_order_acquire) == static_cast<uint8_t>(WaitSource::MonitorEnter);
}

bool MonitorOwnerWords::readWhileWaiting(const ThreadSlot& waiter, int64_t start_ns, uint64_t& word,
                                         uintptr_t* object) const {
  const uintptr_t thread = javaThreadOf(waiter);
  if (thread == 0 || !waitsToEnter(waiter, start_ns)) return false;
  const uintptr_t monitor = pendingMonitor(thread);
  if (monitor == 0) return false;
  word = load<uint64_t>(monitor + static_cast<uintptr_t>(owner_));
  if (object) *object = word == kAnonymousOwner ? objectOf(monitor) : 0;
  std::atomic_thread_fence(std::memory_order_acquire);
  return waitsToEnter(waiter, start_ns);
}

uint64_t MonitorOwnerWords::ownerWord(const ThreadSlot& waiter, int64_t start_ns) const {
  uint64_t word = 0;
  return readWhileWaiting(waiter, start_ns, word, nullptr) ? word : 0;
}

bool MonitorOwnerWords::heldBy(const ThreadSlot& waiter, int64_t start_ns, const ThreadSlot& owner) const {
  uint64_t word = 0;
  uintptr_t object = 0;
  if (!readWhileWaiting(waiter, start_ns, word, &object)) return false;
  return names(word, owner) || (object != 0 && holdsOnLockStack(object, owner));
}

uint64_t MonitorOwnerWords::ownOwnerWord(JNIEnv* jni) const {
  const uintptr_t monitor = pendingMonitor(javaThreadOf(jni));
  return monitor == 0 ? 0 : load<uint64_t>(monitor + static_cast<uintptr_t>(owner_));
}

uintptr_t MonitorOwnerWords::anonymousOwnersObject(JNIEnv* jni, uint64_t word) const {
  if (word != kAnonymousOwner) return 0;
  const uintptr_t monitor = pendingMonitor(javaThreadOf(jni));
  return monitor == 0 ? 0 : objectOf(monitor);
}

uintptr_t MonitorOwnerWords::objectOf(uintptr_t monitor) const {
  if (lock_stack_ < 0) return 0;
  // The WeakHandle's one field: where in the VM's oop storage the object's reference lies.
  const auto handle = load<uintptr_t>(monitor + static_cast<uintptr_t>(object_));
  if (handle == 0 || handle % 8 != 0) return 0;
  return load<uintptr_t>(handle);
}

uintptr_t MonitorOwnerWords::javaThreadOf(const ThreadSlot& slot) const {
  return slot.foreign || !slot.env ? slot.java_thread : javaThreadOf(slot.env);
}

bool MonitorOwnerWords::holdsOnLockStack(uintptr_t object, const ThreadSlot& slot) const {
  const uintptr_t thread = javaThreadOf(slot);
  if (object == 0 || lock_stack_ < 0 || thread == 0) return false;
  const auto first = static_cast<uint32_t>(lock_stack_ + kLockStackBase);
  const auto end = static_cast<uint32_t>(lock_stack_ + static_cast<int64_t>(kLockStackSize));
  // Read without the owner's consent: a stale top or entry can only miss it or find it gone.
  const uint32_t top = std::min(load<uint32_t>(thread + static_cast<uintptr_t>(lock_stack_)), end);
  for (uint32_t offset = first; offset + 8 <= top; offset += 8)
    if (load<uintptr_t>(thread + offset) == object) return true;
  return false;
}

bool MonitorOwnerWords::names(uint64_t word, const ThreadSlot& slot) const {
  if (word == 0) return false;
  // A thread id needs only the slot's Java id: a thread that ran before an attach (foreign,
  // its JNIEnv unknown) is named too.
  if (owner_is_thread_id_) return slot.java_id != 0 && static_cast<uint64_t>(slot.java_id) == word;
  const uintptr_t thread = javaThreadOf(slot);
  if (thread == 0) return false;
  if (word == thread) return true;
  // A lock record in the owner's stack (the lock was inflated while held there).
  return slot.stack_ready.load(std::memory_order_acquire) && slot.stack.low < slot.stack.base &&
         word >= slot.stack.low && word < slot.stack.base;
}

void setMonitorOwnerWords(const MonitorOwnerWords* words) { g_words.store(words, std::memory_order_release); }
const MonitorOwnerWords* boundMonitorOwnerWords() { return g_words.load(std::memory_order_acquire); }

}  // namespace stackscope::agent

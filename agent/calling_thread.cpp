#include "agent/calling_thread.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace stackscope::agent {

namespace {
std::atomic<const NativeThreads*> g_by_tid{nullptr};
std::atomic<ThreadRegistry*> g_registry{nullptr};
}  // namespace

void setCallingThreadLookup(const NativeThreads* by_tid, ThreadRegistry* registry) {
  g_by_tid.store(by_tid, std::memory_order_release);
  g_registry.store(registry, std::memory_order_release);
}

ThreadSlot* callingThreadSlot() {
  if (ThreadSlot* own = currentThreadSlot()) return own;
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  ThreadSlot* slot = nullptr;
  if (const NativeThreads* by_tid = g_by_tid.load(std::memory_order_acquire)) slot = by_tid->find(tid);
  if (!slot) {
    if (ThreadRegistry* registry = g_registry.load(std::memory_order_acquire)) slot = registry->foreignSlotOf(tid);
  }
  return slot;
}

}  // namespace stackscope::agent

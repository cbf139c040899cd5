#include "agent/calling_thread.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace stackscope::agent {

namespace {
std::atomic<const NativeThreads*> g_by_tid{nullptr};
std::atomic<ThreadRegistry*> g_registry{nullptr};
std::atomic<uint64_t> g_bindings{0};  // moves on with every session's lookup

// What the last lookup by OS thread id found for this thread, and when: still its slot while
// no session bound its lookup since, no adopted slot was retired (a retired one is handed to
// another thread later) and no foreign one came or went. A virtual thread's carrier that ran
// before an attach looks itself up at every mount and unmount: a system call and a scan of
// the table each, more than the callback's own work (docs/benchmarks.md).
struct Found {
  ThreadSlot* slot = nullptr;
  uint64_t binding = 0, retirements = 0, registry_generation = 0;
};
thread_local Found t_found;
}  // namespace

void setCallingThreadLookup(const NativeThreads* by_tid, ThreadRegistry* registry) {
  g_by_tid.store(by_tid, std::memory_order_release);
  g_registry.store(registry, std::memory_order_release);
  g_bindings.fetch_add(1, std::memory_order_acq_rel);
}

ThreadSlot* callingThreadSlot() {
  if (ThreadSlot* own = currentThreadSlot()) return own;
  const NativeThreads* by_tid = g_by_tid.load(std::memory_order_acquire);
  ThreadRegistry* registry = g_registry.load(std::memory_order_acquire);
  Found now;
  now.binding = g_bindings.load(std::memory_order_acquire);
  now.retirements = by_tid ? by_tid->retirements() : 0;
  now.registry_generation = registry ? registry->generation() : 0;
  const Found& last = t_found;
  if (last.slot && last.binding == now.binding && last.retirements == now.retirements &&
      last.registry_generation == now.registry_generation) {
    return last.slot;
  }
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (by_tid) now.slot = by_tid->find(tid);
  if (!now.slot && registry) now.slot = registry->foreignSlotOf(tid);
  t_found = now;
  return now.slot;
}

}  // namespace stackscope::agent

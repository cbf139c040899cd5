// The Java threads the agent samples, each with a small id, and the per-thread slot that the
// signal handler finds through a thread-local pointer.
//
// Lock order: ThreadRegistry::mutex_ is taken by JVMTI callbacks and the wall sampler, never
// by a signal handler; nothing else is locked while holding it except the meta-event queue.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace stackscope::agent {

struct ThreadSlot {
  // Fixed at registration; read by the signal handler running on the thread itself.
  JNIEnv* env = nullptr;
  uint32_t id = 0;
  pid_t tid = 0;

  // The thread's annotation (annotation_table.h id, 0 = none) and whether the collection-time
  // filter leaves the thread out. Written only by the thread itself (the annotate native),
  // read by its signal handler and by the wall sampler. An excluded thread is neither
  // signalled nor walked, and its timer (cpu mode) is disarmed.
  std::atomic<uint32_t> annotation{0};
  std::atomic<bool> excluded{false};

  // cpu mode: the thread's CPU-time timer, one of the two kinds (cpu_sampler.h), under the
  // registry mutex.
  int perf_fd = -1;
  timer_t timer{};
  bool has_timer = false;
  int64_t timer_interval_ns = 0;

  // wall mode, shared between the sampler (which signals) and the handler (which captures).
  std::atomic<uint8_t> wall_state{0};        // state to record, set before signalling
  std::atomic<bool> wall_pending{false};     // signalled, handler has not run yet
  std::atomic<bool> has_stack{false};        // a stack was captured and queued for this thread
  std::atomic<int64_t> cpu_at_capture{-1};   // thread CPU time at the end of the last good capture

  // wall mode, sampler thread only.
  int64_t last_seen_cpu = -1;
  uint8_t last_state = 0;
  uint8_t signalled_state = 0;  // the state the last signal was sent in

  // Callbacks only (registry mutex).
  jthread thread_ref = nullptr;  // JNI global reference
  std::string name;
};

// The calling thread's slot, null when the thread is not registered. Async-signal-safe.
ThreadSlot* currentThreadSlot();
// Sets the calling thread's slot (null to clear). Not for signal handlers.
void setCurrentThreadSlot(ThreadSlot* slot);

class ThreadRegistry {
 public:
  uint32_t nextId() { return next_id_.fetch_add(1, std::memory_order_relaxed); }

  enum class AddResult : uint8_t { Added, AddedWithoutTimer, Closed };
  // Adds the calling thread's slot and, when timer_interval_ns > 0, creates its CPU timer,
  // armed unless the slot is excluded. Closed once the VM is dying: the slot then stays the
  // caller's.
  AddResult add(ThreadSlot* slot, int64_t timer_interval_ns);
  // Arms or disarms the CPU timer of a registered slot (nothing once closed, or without one).
  void setTimerArmed(ThreadSlot& slot, bool armed);
  // Removes and returns the slot with that id (null if absent). Its timer is deleted.
  ThreadSlot* remove(uint32_t id);
  // Deletes every timer and refuses further additions.
  void close();
  size_t size();

  // Runs fn(ThreadSlot&) for every live thread with the mutex held, so no slot can be
  // removed (nor its thread signalled after its end) meanwhile.
  template <typename Fn>
  void forEachLocked(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, slot] : slots_) fn(*slot);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<uint32_t, ThreadSlot*> slots_;
  bool closed_ = false;
  std::atomic<uint32_t> next_id_{1};
};

}  // namespace stackscope::agent

// The Java threads the agent samples, each with a small id, and the per-thread slot that the
// signal handler finds through a thread-local pointer.
//
// Foreign slots stand for threads that were running before VMInit (Reference Handler,
// Finalizer, Signal Dispatcher...) or an attach: no ThreadStart reaches the agent for them, so
// no agent code ever runs on them. They have no JNIEnv and no thread-local slot, a tid and a
// stack only where the VM told them, cannot be signalled, and are sampled from the wall
// sampler thread through JVMTI (wall mode only).
//
// Lock order: ThreadRegistry::mutex_ is taken by JVMTI callbacks and the wall sampler, never
// by a signal handler; nothing else is locked while holding it except the meta-event queue.
// JNI and JVMTI calls made under it may wait for a safepoint; that cannot deadlock, because
// a thread waiting for the mutex waits in native code, which safepoints do not wait for.
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
#include <vector>

#include "agent/cpu_intervals.h"
#include "agent/meta_events.h"
#include "agent/native_below.h"
#include "agent/stub_unwind.h"
#include "agent/stub_walk_cache.h"
#include "agent/thread_metrics.h"

namespace stackscope::agent {

struct ThreadSlot {
  // Fixed at registration; read by the signal handler running on the thread itself.
  JNIEnv* env = nullptr;
  uint32_t id = 0;
  pid_t tid = 0;
  StackBounds stack;     // where the handler may read the thread's stack (stub_unwind.h)
  // Mixed mode (native_threads.h): a native thread's stack is found after its slot is made;
  // until then `stack` must not be read, and its samples leave their sp here for the scan.
  std::atomic<bool> stack_ready{true};
  std::atomic<uintptr_t> native_sp{0};
  bool foreign = false;  // see the top of this file: env is unknown, tid and stack may be
  // A thread that ran before an attach (foreign, or adopted in cpu mode): its JavaThread*, read
  // from its java.lang.Thread then (java_thread_tids.h), which names it as a monitor's owner
  // without its JNIEnv (monitor_owner_words.h); 0 for the others and where it could not be read.
  uintptr_t java_thread = 0;
  // Mixed mode: the thread's active JNI handle block when its stack was last seen with one
  // Java region (entry_frames.h), 0 = not seen. Its own signal handler's only.
  uintptr_t single_region_handles = 0;
  // Mixed mode: the native frames below its outermost Java frame (native_below.h). Its own
  // signal handler's only.
  NativeFramesBelow below;

  // The thread's annotation (annotation_table.h id, 0 = none) and whether the collection-time
  // filter leaves the thread out. Written only by the thread itself (the annotate native),
  // read by its signal handler and by the wall sampler. An excluded thread is neither
  // signalled nor walked, and its timer (cpu mode) is disarmed.
  std::atomic<uint32_t> annotation{0};
  std::atomic<bool> excluded{false};

  // The virtual thread mounted on this carrier (its id), 0 = none (virtual_threads.h). Set
  // by the mount events on the thread itself, read by its signal handler and the sampler.
  std::atomic<uint32_t> mounted_vthread{0};

  // Lock trace (lock_trace.h): the wait the thread is in, its monotonic start (0 = none) and
  // its source (WaitSource). Written by the thread itself around the wait, read by the writer
  // thread, which looks for the owner of waits that have lasted the threshold (lock_owners.h).
  std::atomic<int64_t> wait_start_ns{0};
  std::atomic<uint8_t> wait_source{0};
  // A monitor enter's owner when the wait began, as the VM's words named it
  // (monitor_owner_words.h): its registry id, 0 = none. The thread's own: written as the wait
  // begins, read as it ends.
  uint32_t wait_owner = 0;

  // cpu mode: the thread's CPU-time timer, one of the two kinds (cpu_sampler.h), under the
  // registry mutex.
  int perf_fd = -1;
  // Mixed mode, a task-clock timer allowed to see the kernel: the ring the kernel writes each
  // sample's kernel call chain into (cpu_sampler.h), read by the thread's signal handler.
  std::atomic<void*> kernel_ring{nullptr};
  timer_t timer{};
  bool has_timer = false;
  int64_t timer_interval_ns = 0;
  // cpu mode: the thread's CPU time its samples stood for so far (cpu_intervals.h).
  SampledCpuTime cpu_sampled;

  // The Java frames of its last walk from a runtime stub, in the VM or in the stub's call
  // (stub_walk_cache.h).
  StubWalkCache stub_walk;

  // The thread's counters at its last sample (thread_metrics.h): set at registration, then
  // moved by its own signal handler only (the wall sampler's, for a foreign thread).
  MetricBase metric_base;

  // wall mode, shared between the sampler (which signals) and the handler (which captures).
  std::atomic<uint8_t> wall_state{0};        // state to record, set before signalling
  std::atomic<uint32_t> wall_vthread{0};     // the virtual thread wall_state is for, 0 = the carrier's own
  std::atomic<uint32_t> wall_pending{0};     // signalled, handler has not run yet (wall_pending.h)
  std::atomic<bool> has_stack{false};        // a stack was captured and queued for this thread
  std::atomic<int64_t> cpu_at_capture{-1};   // thread CPU time at the end of the last good capture

  // wall mode, sampler thread only (under the registry mutex).
  int64_t last_seen_cpu = -1;
  uint8_t last_state = 0;
  uint8_t signalled_state = 0;  // the state the last signal was sent (foreign: stack read) in
  uint32_t idle_period = 1;     // ticks between looks at an idle thread (idle_backoff.h)
  uint64_t next_look_tick = 0;
  uint32_t owed_ticks = 0;      // ticks since the last sample that no look covered yet
  uint64_t last_look_tick = 0;  // the sampler's tick of its last look (owed: the ticks since)
  uint64_t last_rename_tick = 0;
  bool scheduled = false;       // the sampler knows the thread (last_look_tick is meaningful)
  bool look_given_up = false;   // its last look was given up for a late tick (wall_sampler.cpp)

  // Callbacks and the wall sampler's rename check (registry mutex).
  jthread thread_ref = nullptr;  // JNI global reference
  jweak name_ref = nullptr;      // the java.lang.String `name` had when `name` was read
  std::string name;
  int64_t java_id = 0;
  uint64_t os_start = 0;         // the OS thread's start time (thread_state.h), 0 = unknown
};

// The calling thread's slot, null when the thread is not registered. Async-signal-safe.
ThreadSlot* currentThreadSlot();
// Sets the calling thread's slot (null to clear). Not for signal handlers.
void setCurrentThreadSlot(ThreadSlot* slot);
// Every thread's slot reads as null from now on (a session ends: its slots will be freed).
void forgetThreadSlots();

class ThreadRegistry {
 public:
  explicit ThreadRegistry(MetaQueue& meta) : meta_(meta) {}

  uint32_t nextId() { return next_id_.fetch_add(1, std::memory_order_relaxed); }

  // Not added: Closed once the VM is dying; Present when a slot already stands for the
  // thread. The slot then stays the caller's, and `start` is not queued.
  enum class AddResult : uint8_t { Added, AddedWithoutTimer, Closed, Present };
  // Adds the calling thread's slot and, when timer_interval_ns > 0, creates its CPU timer,
  // armed unless the slot is excluded. `start` (its ThreadStart event and record) is queued
  // just before, under the mutex: once added the thread can be sampled, and its record must
  // precede its samples; a thread that is not added is not announced. Present when a foreign
  // slot stands for the thread already: it started while VMInit listed the threads, and
  // that slot goes on sampling it.
  AddResult add(ThreadSlot* slot, int64_t timer_interval_ns, JNIEnv* jni, MetaEvent start);
  // Adds a foreign slot (no timer), unless any slot stands for its thread already.
  AddResult addForeign(ThreadSlot* slot, JNIEnv* jni, MetaEvent start);
  // Arms or disarms the CPU timer of a registered slot (nothing once closed, or without one).
  void setTimerArmed(ThreadSlot& slot, bool armed);
  // Removes and returns the slot with that id (null if absent). Its timer is deleted.
  ThreadSlot* remove(uint32_t id);
  // The foreign slot of the thread whose OS id is `tid` (null if none, or tid 0): a thread
  // running before the agent, announcing itself through the Java API (java_api.cpp).
  ThreadSlot* foreignSlotOf(pid_t tid);
  // Removes and returns the foreign slot that stands for `thread` (null if none): a foreign
  // thread has no thread-local slot to tell its ThreadEnd which slot is its.
  ThreadSlot* removeForeign(JNIEnv* jni, jthread thread);
  // Removes every foreign slot into `out`.
  void removeAllForeign(std::vector<ThreadSlot*>& out);
  // Deletes every timer and refuses further additions.
  void close();
  // Once closed, at the end of a session: removes every slot into `out`, to be freed.
  void removeAll(std::vector<ThreadSlot*>& out);
  size_t size();

  // Runs fn(generation, slots) with the mutex held; the generation changes whenever a slot
  // comes or goes, so a caller can keep its own list of the slots until it does.
  template <typename Fn>
  void withSlotsLocked(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    fn(generation_.load(std::memory_order_relaxed), slots_);
  }
  // The same generation, read without the mutex (calling_thread.cpp).
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  // The wall sampler's current tick, for the ticks a thread that ends was owed.
  std::atomic<uint64_t> wall_tick{0};

  // Runs fn(ThreadSlot&) for every live thread with the mutex held, so no slot can be
  // removed (nor its thread signalled after its end) meanwhile.
  template <typename Fn>
  void forEachLocked(Fn&& fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [id, slot] : slots_) fn(*slot);
  }

 private:
  // Queues `start` and inserts the slot. mutex_ held, not closed.
  void insertLocked(ThreadSlot* slot, MetaEvent&& start);

  MetaQueue& meta_;
  std::mutex mutex_;
  std::unordered_map<uint32_t, ThreadSlot*> slots_;
  std::vector<ThreadSlot*> foreign_;  // the foreign ones among slots_ (a few JVM threads)
  bool closed_ = false;
  std::atomic<uint64_t> generation_{0};  // written under mutex_
  std::atomic<uint32_t> next_id_{1};
};

}  // namespace stackscope::agent

// The lock trace (event=...,lock; lock=1ms the threshold): every wait at least the threshold
// long, of three sources:
//   contended monitor enter   JVMTI MonitorContendedEnter/Entered        -> kind Lock
//   Object.wait               JVMTI MonitorWait/Waited                   -> kind Wait
//   Unsafe.park               the native wrapped (park_hook.h)           -> Lock when the blocker
//                             is a lock (ReentrantLock, ReentrantReadWriteLock: parkKind), Wait
//                             otherwise (latches, Condition.await, queues, futures, no blocker)
// A virtual thread's waits keep their start in its own state, not its carrier's slot
// (virtual_waits.h): its parks do not call Unsafe.park, and JDK 24+ unmounts it off a monitor.
// each with the waiting thread, its stack, the duration and the class of the lock object.
//
// Cheap by construction: a wait's start only stores its time and source in the thread's slot
// (ThreadSlot::wait_start_ns), nothing else; only a wait found at its end to be at least the
// threshold long pays for its stack and class (JVMTI calls on the waiting thread, which is
// about to run Java code again: no lock of the agent is held). The owner (the culprit) is
// found by the writer thread while the wait goes on (lock_owners.h), so short waits never
// pay for it.
//
// The capabilities (monitor events, native method bind, monitor info) are asked for only when
// the trace is on, and its events enabled only then: with the trace off nothing changes.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "agent/bounded_queue.h"
#include "agent/native_threads.h"
#include "agent/object_class.h"
#include "agent/own_stacks.h"
#include "agent/sample_slot.h"
#include "agent/thread_registry.h"
#include "format/records.h"

namespace stackscope::agent {

// What a thread's slot says it waits in (ThreadSlot::wait_source).
enum class WaitSource : uint8_t { None = 0, MonitorEnter = 1, ObjectWait = 2, Park = 3 };

struct LockWait {
  int64_t time_ns = 0;      // its start, since the recording's time 0
  int64_t duration_ns = 0;
  uint32_t slot_id = 0;     // the waiting platform thread's registry id: with start_ns, the wait's identity
  int64_t start_ns = 0;     // monotonic start, as ThreadSlot::wait_start_ns had it
  uint32_t thread = 0;      // the thread reported: a park's pinned virtual thread, else slot_id
  uint32_t annotation = 0;
  uint32_t owner = 0;  // a monitor enter's owner when it began (ThreadSlot::wait_owner), 0 = none
  format::WaitKind kind = format::WaitKind::Lock;
  const std::string* class_name = nullptr;  // interned (object_class.h); null = a park without blocker
  bool zero_length_int_array = false;  // the lock: maybe a class's initialization lock (class_init_lock.h)
  std::vector<RawFrame> frames;  // the waiting thread's stack, innermost first
};

class LockTrace {
 public:
  // More than this many waits waiting for the writer are counted, not queued.
  static constexpr size_t kMaxQueued = 1 << 16;

  // `wake`: the writer's, woken by the queue (BoundedQueue) and by a wait that may want an
  // owner look (writer_pacing.h). `by_tid`: the table of threads found by tid, where an attach
  // in cpu mode adopts the threads already running (native_threads.h); null when none.
  LockTrace(jvmtiEnv* jvmti, ThreadRegistry& registry, NativeThreads* by_tid, int64_t start_ns, int64_t threshold_ns,
            WriterWake* wake)
      : jvmti_(jvmti), registry_(registry), by_tid_(by_tid), start_ns_(start_ns), threshold_ns_(threshold_ns),
        class_names_(jvmti), wake_(wake), queue_(kMaxQueued, wake) {}

  // At VMInit, before the park wrapper reports to it: the classes and fields the trace reads
  // (java.lang.Thread.parkBlocker, AbstractOwnableSynchronizer). False when this JVM lacks
  // them: parks are then not traced.
  bool init(JNIEnv* jni);

  int64_t thresholdNs() const { return threshold_ns_; }

  // A wait starts / ends on the calling thread. `object` is the monitor (monitor sources)
  // or null (park: the blocker is read from the thread). Nothing before init: threads may
  // wait (and be registered) before VMInit, with early VMStart (park_hook.h).
  void begin(JNIEnv* jni, WaitSource source);
  void end(JNIEnv* jni, jobject object);

  // The park blocker of `thread` (a local reference, null when none), and whether it is a
  // lock: an AbstractOwnableSynchronizer, whose owner is its exclusiveOwnerThread.
  jobject parkBlocker(JNIEnv* jni, jthread thread) const;
  bool isOwnable(JNIEnv* jni, jobject blocker) const;
  jthread exclusiveOwner(JNIEnv* jni, jobject blocker) const;  // local reference or null

  // A park's kind: Lock when its blocker is a lock, an AbstractOwnableSynchronizer other than
  // the JDK's latches and semaphores (java.util.concurrent's own, CountDownLatch$Sync,
  // Semaphore$*, ThreadPoolExecutor$Worker: the ones outside java.util.concurrent.locks, whose
  // ReentrantLock and ReentrantReadWriteLock stay locks, as do an application's own); Wait
  // otherwise (a latch, a Condition, a queue, a future, no blocker). `class_name`: the blocker's.
  format::WaitKind parkKind(JNIEnv* jni, jobject blocker, const std::string* class_name) const;

  // For the waits of virtual threads (virtual_waits.h), which keep their start in their own
  // state and make their events as end() does.
  bool ready() const { return ready_.load(std::memory_order_acquire); }
  int64_t startNs() const { return start_ns_; }
  const std::string* classNameOf(JNIEnv* jni, jobject object) { return class_names_.nameOf(jni, object); }
  bool full() const { return queue_.full(); }
  void drop() { queue_.drop(); }
  void push(LockWait&& wait) { queue_.push(std::move(wait)); }

  // Writer thread (lock_owners.h), after each look: from when (monotonic) the look budget has
  // a look again. A wait that begins before then does not wake the writer for one.
  void ownerLooksFrom(int64_t ns) { owner_looks_from_ns_.store(ns, std::memory_order_relaxed); }

  // Writer thread: moves every queued wait into `out` (cleared first).
  void takeAll(std::vector<LockWait>& out) { queue_.takeAll(out); }
  uint64_t dropped() const { return queue_.dropped(); }
  // The monitor enters' stacks (own_stacks.h): what they cost, for the recording's end.
  const OwnStacks& ownStacks() const { return own_stacks_; }

 private:
  // The registry id of the thread that holds the monitor the calling thread (`self` its slot)
  // begins to wait for, 0 = none found (monitor_owner_words.h). In MonitorContendedEnter.
  uint32_t ownerNow(JNIEnv* jni, const ThreadSlot& self);

  jvmtiEnv* const jvmti_;
  ThreadRegistry& registry_;  // for a monitor's owner (monitor_owner_words.h)
  NativeThreads* const by_tid_;  // the same, among the threads adopted at an attach
  const int64_t start_ns_;
  const int64_t threshold_ns_;
  ObjectClassNames class_names_;
  WriterWake* const wake_;
  std::atomic<bool> ready_{false};  // init done: the fields below are set
  std::atomic<int64_t> owner_looks_from_ns_{0};  // ownerLooksFrom
  jfieldID park_blocker_ = nullptr;     // java.lang.Thread.parkBlocker
  jclass ownable_ = nullptr;            // AbstractOwnableSynchronizer (global reference)
  jfieldID exclusive_owner_ = nullptr;  // its exclusiveOwnerThread
  BoundedQueue<LockWait> queue_;  // pushed by waiting threads after their wait, taken by the writer
  OwnStacks own_stacks_;          // the stacks of monitor enters
};

}  // namespace stackscope::agent

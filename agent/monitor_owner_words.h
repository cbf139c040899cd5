// The owner of the monitor a thread waits to enter, read from the VM's own words instead of
// asked of JVMTI. GetCurrentContendedMonitor (a handshake with the waiter) and
// GetObjectMonitorUsage (a VM operation: a safepoint that stops every thread) made a lock
// look cost about 100 µs of the process's CPU; these reads cost a few cache misses.
//
//   waiter's JavaThread::_current_pending_monitor   the ObjectMonitor it waits for
//   ObjectMonitor::_owner                           its owner, in one of two forms:
//     HotSpot 24 and later (JavaThread::_monitor_owner_id exists): the owning thread's
//       java.lang.Thread id; the small reserved values (no owner, an anonymous owner that holds
//       the lock on its lock stack, the deflater's marker) match no thread;
//     before: the owning JavaThread*, or for a lock inflated while the owner held it on its
//       stack, the address of that lock record in the owner's stack.
// HotSpot 24+ inflates a lock another thread holds on its lock stack (lightweight locking, the
// default) with that anonymous owner, and names the owner only when it next enters or leaves:
// in a program whose locks are contended now and then (H2 under load: 83 of 90 contended
// enters), nearly every wait begins so. The waiter then finds the owner itself: the thread
// whose lock stack (JavaThread::_lock_stack, eight oops) holds the monitor's object.
//
// SAFETY: another thread's ObjectMonitor may be deflated and freed at any time once nobody
// owns it or is counted as contending for it. A thread that waits to enter is counted from
// before it sets its pending monitor (and the MonitorContendedEnter event is posted) until it
// owns the monitor, and it clears the slot's wait (lock_trace.h, after MonitorContendedEntered)
// while it still owns it. So the monitor cannot be freed while the waiter's slot shows the
// same wait: ownerWord reads the slot's wait before and after the monitor's word, and gives
// the word only when both show the same wait (x86's loads are not reordered with each other).
// The waiter's JavaThread itself lives while its slot is in the registry: the caller holds the
// registry's mutex.
#pragma once

#include <jni.h>

#include <cstdint>

#include "agent/thread_registry.h"
#include "agent/vm_structs.h"

namespace stackscope::agent {

class MonitorOwnerWords {
 public:
  // Reads the layout; `env_offset` is jniEnvOffset's (vm_thread_anchor.h). False when this VM
  // lacks a field, or on a machine other than x86-64 (the reads rely on its load order).
  bool bind(const VmStructs& vm, int64_t env_offset);

  // The owner word of the monitor `waiter` waits to enter, for its wait that began at
  // `start_ns` (ThreadSlot::wait_start_ns) as a monitor enter; 0 when it no longer waits so,
  // waits for no monitor, or the monitor has no owner. Under the registry's mutex.
  uint64_t ownerWord(const ThreadSlot& waiter, int64_t start_ns) const;
  // Whether the monitor `waiter` waits to enter (its wait that began at `start_ns`) is held by
  // `owner`'s thread now: its owner word names it, or, an anonymous owner, the monitor's object
  // is on its lock stack. False when the waiter no longer waits so. Under the registry's mutex.
  bool heldBy(const ThreadSlot& waiter, int64_t start_ns, const ThreadSlot& owner) const;
  // The owner word of the monitor the calling thread (`jni` its own) waits to enter, in its
  // MonitorContendedEnter callback: it is counted as contending, so the monitor stays.
  uint64_t ownOwnerWord(JNIEnv* jni) const;
  // For an anonymous owner (ownOwnerWord's word `word`): the calling thread's monitor's object,
  // to look for in the lock stacks (holdsOnLockStack); 0 when the word is another, or this VM
  // has no lock stacks or another layout of them.
  uintptr_t anonymousOwnersObject(JNIEnv* jni, uint64_t word) const;
  // Whether `slot`'s thread holds `object` on its lock stack. Under the registry's mutex.
  bool holdsOnLockStack(uintptr_t object, const ThreadSlot& slot) const;
  // Whether `word` (ownerWord's or ownOwnerWord's) names the thread of `slot`. Under the
  // registry's mutex.
  bool names(uint64_t word, const ThreadSlot& slot) const;

 private:
  uintptr_t javaThreadOf(JNIEnv* env) const;
  // The slot's JavaThread*: by its JNIEnv, or as read at an attach (ThreadSlot::java_thread).
  uintptr_t javaThreadOf(const ThreadSlot& slot) const;
  // The ObjectMonitor the JavaThread at `thread` waits to enter, 0 = none.
  uintptr_t pendingMonitor(uintptr_t thread) const;
  // The object of `monitor`, 0 when this VM has no lock stacks to look for it in.
  uintptr_t objectOf(uintptr_t monitor) const;
  // Whether `waiter`'s slot still shows its monitor enter that began at `start_ns`: while it
  // does, its pending monitor cannot be freed (the SAFETY note above).
  static bool waitsToEnter(const ThreadSlot& waiter, int64_t start_ns);
  // The owner word of the monitor `waiter` waits to enter, and when `object` is asked for and
  // the owner is anonymous, the monitor's object (else 0). False unless the waiter showed that
  // wait before and after the reads: then the monitor was alive and the words mean what they say.
  bool readWhileWaiting(const ThreadSlot& waiter, int64_t start_ns, uint64_t& word, uintptr_t* object) const;

  int64_t env_offset_ = 0;
  int64_t pending_monitor_ = -1;  // JavaThread::_current_pending_monitor
  int64_t owner_ = -1;            // ObjectMonitor::_owner
  bool owner_is_thread_id_ = false;
  int64_t object_ = -1;      // ObjectMonitor::_object, a WeakHandle: a pointer to the oop
  int64_t lock_stack_ = -1;  // JavaThread::_lock_stack, 0 = none: its _top, then eight oops at 16
};

// Bound at the first session's begin (vm_bindings.cpp) and kept for the process; null until
// then, or when this VM's layout is not the one known here.
void setMonitorOwnerWords(const MonitorOwnerWords* words);
const MonitorOwnerWords* boundMonitorOwnerWords();

}  // namespace stackscope::agent

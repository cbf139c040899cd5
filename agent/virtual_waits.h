// The lock trace's waits of virtual threads (JDK 21+). Two of them escape the platform path
// (lock_trace.h), which keeps a wait's start in the slot of the OS thread that waits:
//   a park: a virtual thread's LockSupport.park does not call Unsafe.park (park_hook.h sees
//     nothing): it yields, its carrier unmounts it and runs other virtual threads meanwhile;
//   a monitor enter or Object.wait: JDK 24+ unmounts a virtual thread blocked on a monitor
//     too, so the wait begins on one carrier and may end on another, each having run other
//     virtual threads in between, whose waits would overwrite the carrier's one start.
// So a virtual thread's wait start is kept in the virtual thread's own state: its JVMTI
// thread-local storage, which holds its id already, one word (virtual_state.h): the id, the
// wait's source and its start. Noting a wait and ending it allocates nothing and takes no lock
// of the agent's, and shares nothing: a virtual thread's storage is written only by the
// carrier it runs on, and it runs on one carrier at a time. Each carrier keeps a copy of its
// mounted virtual thread's word (read at the mount anyway), so a park costs one JVMTI write at
// its unmount and one at its mount, a monitor wait one at its start and one at its end. A wait
// that lasted the threshold then pays for its event as the platform path's does (lock_trace.h):
// its stack (a JVMTI walk into a new vector), its lock's class name (interned under the
// names' mutex, allocated once per class) and its place in the trace's queue (under its mutex).
//
//   parks: VirtualThreadUnmount notes the start (source Park) unless a monitor wait is under
//     way already; the next VirtualThreadMount ends it: when it lasted the threshold and the
//     virtual thread's parkBlocker is set (LockSupport clears it only after the park returns),
//     one event, as the platform path makes (LockTrace::parkKind). No blocker: a sleep, an I/O
//     wait, a yield, a park without blocker, which unmount alike and cannot be told apart: no
//     event. A pinned virtual thread parks its carrier in Unsafe.park: the platform path's.
//   monitors: the monitor callbacks come on the virtual thread while it is mounted (before it
//     unmounts, after it is mounted again), their `thread` the virtual thread: begin/end below
//     take a callback when JNI's IsVirtualThread says its `thread` is virtual, whatever the
//     carrier's slot says (the carrier's own monitors stay the platform path's, even while a
//     virtual thread is mounted on it). A virtual thread mounted before this session began has
//     no id of the session's until its next mount: its monitor waits until then are not recorded.
// The event's thread is the virtual thread, its stack the virtual thread's (GetStackTrace of
// the virtual thread), its annotation and the collection-time filter the carrier's, as for
// every event of a mounted virtual thread. The owner look (lock_owners.h) reads the carriers'
// slots only: a virtual thread's waits have no owner.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

#include "agent/lock_trace.h"
#include "agent/virtual_state.h"

namespace stackscope::agent {

class VirtualWaits {
 public:
  // `epoch`: the session's (ThreadTracker::virtualEpoch), which marks the words written.
  VirtualWaits(jvmtiEnv* jvmti, LockTrace& trace, const VirtualEpoch& epoch) : jvmti_(jvmti), trace_(trace), epoch_(epoch) {}

  // The mount events (virtual_threads.h), on the carrier, whose current thread is still or
  // already the virtual thread: it is unmounted / `vthread` is mounted.
  // `stored`: its thread-local storage word, as the tracker left it at the mount (this session's).
  void onUnmount();
  void onMount(JNIEnv* jni, jthread vthread, uint64_t stored);

  // A monitor wait of the calling thread, `thread`, begins / ends (the monitor callbacks).
  // False when `thread` is not a virtual thread: the platform path's (LockTrace).
  bool begin(JNIEnv* jni, jthread thread, WaitSource source);
  bool end(JNIEnv* jni, jthread thread, jobject monitor);

 private:
  struct Finished {
    uint32_t id = 0;  // the virtual thread's
    WaitSource source = WaitSource::None;
    int64_t start_ns = 0;  // monotonic
    int64_t duration_ns = 0;
  };
  // Ends the wait noted in `state` (the calling virtual thread's) if its source is one of
  // `sources` (bits 1 << source): clears it, and true when it lasted the threshold.
  bool finish(uint64_t state, unsigned sources, Finished& out);
  // Queues the wait as an event of `kind` (the calling carrier mounts `vthread`).
  void keep(jthread vthread, const Finished& finished, format::WaitKind kind, const std::string* class_name);

  jvmtiEnv* const jvmti_;
  LockTrace& trace_;
  const VirtualEpoch& epoch_;
};

}  // namespace stackscope::agent

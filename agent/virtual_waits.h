// The lock trace's waits of virtual threads (JDK 21+). Two of them escape the platform path
// (lock_trace.h), which keeps a wait's start in the slot of the OS thread that waits:
//   a park: a virtual thread's LockSupport.park does not call Unsafe.park (park_hook.h sees
//     nothing): it yields, its carrier unmounts it and runs other virtual threads meanwhile;
//   a monitor enter or Object.wait: JDK 24+ unmounts a virtual thread blocked on a monitor
//     too, so the wait begins on one carrier and may end on another, each having run other
//     virtual threads in between, whose waits would overwrite the carrier's one start.
// So a virtual thread's wait start is kept in the virtual thread's own state: its JVMTI
// thread-local storage, which holds its id already (virtual_threads.h), one word packed as
//   bits  0-31  the id (what ThreadTracker reads and writes)
//   bits 32-33  the WaitSource under way (None: no wait)
//   bits 34-63  the wait's monotonic start in units of 2^16 ns (65.5 µs), modulo 2^30: a
//               wait's length is the difference modulo 2^30 units, right for waits shorter
//               than 19.5 hours (a longer one is taken for its length modulo that).
// No allocation, no lock of the agent's, nothing shared: a virtual thread's storage is written only by the
// carrier it runs on, and it runs on one carrier at a time. Each carrier keeps a copy of its
// mounted virtual thread's word (read at the mount anyway), so a park costs one JVMTI write
// at its unmount and one at its mount, a monitor wait one at its start and one at its end.
//
//   parks: VirtualThreadUnmount notes the start (source Park) unless a monitor wait is under
//     way already; the next VirtualThreadMount ends it: when it lasted the threshold and the
//     virtual thread's parkBlocker is set (LockSupport clears it only after the park returns),
//     one event, as the platform path makes (LockTrace::parkKind). No blocker: a sleep, an I/O
//     wait, a yield, a park without blocker, which unmount alike and cannot be told apart: no
//     event. A pinned virtual thread parks its carrier in Unsafe.park: the platform path's.
//   monitors: the monitor callbacks come on the virtual thread while it is mounted (before it
//     unmounts, after it is mounted again): begin/end below take them when the carrier's slot
//     says a virtual thread is mounted.
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

namespace stackscope::agent {

class VirtualWaits {
 public:
  VirtualWaits(jvmtiEnv* jvmti, LockTrace& trace) : jvmti_(jvmti), trace_(trace) {}

  // The mount events (virtual_threads.h), on the carrier: `vthread` is unmounted / mounted.
  // `stored`: its thread-local storage word, as the tracker read it at the mount.
  void onUnmount(jthread vthread);
  void onMount(JNIEnv* jni, jthread vthread, uint64_t stored);

  // A monitor wait of the calling thread begins / ends (the monitor callbacks). False when
  // the calling thread is not a mounted virtual thread: the platform path's (LockTrace).
  bool begin(jthread thread, WaitSource source);
  bool end(JNIEnv* jni, jthread thread, jobject monitor);

 private:
  struct Finished {
    uint32_t id = 0;  // the virtual thread's
    WaitSource source = WaitSource::None;
    int64_t start_ns = 0;  // monotonic
    int64_t duration_ns = 0;
  };
  // Ends the wait noted in `state` (`vthread`'s) if its source is one of `sources` (bits
  // 1 << source): clears it, and true when it lasted the threshold.
  bool finish(jthread vthread, uint64_t state, unsigned sources, Finished& out);
  // Queues the wait as an event of `kind` (the calling carrier mounts `vthread`).
  void keep(jthread vthread, const Finished& finished, format::WaitKind kind, const std::string* class_name);

  jvmtiEnv* const jvmti_;
  LockTrace& trace_;
};

}  // namespace stackscope::agent

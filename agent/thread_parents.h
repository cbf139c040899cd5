// Which thread started which, for call trees merged at the call that started each thread and
// the summary's thread tree. JVMTI's ThreadStart comes on the new thread and does not say who
// started it, so the agent wraps the native behind every Thread.start(): HotSpot's
// JVM_StartThread, bound to Thread.start0() (through NativeMethodBind, native_bind.h). On the
// starting thread, before the JVM's own function, the wrapper notes the starting thread, its
// Java stack and the new thread's id (Thread.tid), and queues them for the writer, which writes
// a ThreadParent record (docs/format.md).
//
// Not seen: threads started before the agent was loaded (after a dynamic attach start0 is
// bound again to the wrapper: bound_natives.h), virtual threads (not started through start0)
// and the JVM's own threads. A starting thread the collection-time filter leaves out is still noted: the
// new thread may be one the filter keeps.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "agent/bounded_queue.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

struct ThreadStartNote {
  int64_t time_ns = 0;        // since the recording's time 0
  uint32_t parent = 0;        // registry id of the starting thread, 0 = one the agent does not know
  int64_t child_java_id = 0;  // java.lang.Thread's tid of the new thread
  std::vector<RawFrame> frames;  // the starting thread's stack, innermost (Thread.start) first
};

class ThreadParents {
 public:
  // More starts than this waiting for the writer are counted, not queued.
  static constexpr size_t kMaxQueued = 1 << 12;

  // `wake`: the writer's (BoundedQueue).
  ThreadParents(jvmtiEnv* jvmti, int64_t start_ns, WriterWake* wake)
      : jvmti_(jvmti), start_ns_(start_ns), queue_(kMaxQueued, wake) {}

  // Thread.start0 on `thread` (the new one), on the starting thread, before the JVM's own.
  void onStart(JNIEnv* jni, jobject thread);

  // Writer thread: moves every queued start into `out` (cleared first).
  void takeAll(std::vector<ThreadStartNote>& out) { queue_.takeAll(out); }
  uint64_t dropped() const { return queue_.dropped(); }

 private:
  jfieldID tidField(JNIEnv* jni);

  jvmtiEnv* jvmti_;
  const int64_t start_ns_;
  BoundedQueue<ThreadStartNote> queue_;
  std::atomic<jfieldID> tid_{nullptr};  // java.lang.Thread.tid, looked up at the first start
};

// Starts are handed to `parents` from now on (null: no longer).
void setThreadParents(ThreadParents* parents);
// The JVM's JVM_StartThread at `original` is being bound to Thread.start0: returns the wrapper.
// Null forgets it again: the wrapper was not bound after all (bound_natives.h).
void* wrapThreadStart(void* original);
bool isThreadStartWrapper(const void* address);
// Whether Thread.start0 was wrapped (at its bind, or bound again after an attach).
bool threadStartHooked();

}  // namespace stackscope::agent

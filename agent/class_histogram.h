// The class histogram (histo=10s or histo=gc:N): per class, the number of objects in the heap
// and their shallow bytes, taken every interval or after every Nth garbage collection, and
// once more at the end of the recording; each is one ClassHistogram record with its time.
// The control command `histo` takes one more at once, in any recording.
//
// The walk is JVMTI's IterateThroughHeap, which counts every object in the heap, garbage not
// yet collected included (as `jmap -histo` without :live): right after a collection that is
// what survived it. It stops the world for its length (the record carries that pause). It is
// taken on the agent's own thread, never in a JVMTI callback: the GC callback only counts.
//
// Class tags: each walk tags every loaded class with its index in the walk's class list; the
// walk's callback gets the tag of each object's class. The tags live in a JVMTI environment of
// the histogram's own (with can_tag_objects), so they never meet the object tags another trace
// sets in the agent's main environment: JVMTI keeps one tag map per environment.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "agent/agent_thread.h"

namespace stackscope::agent {

struct ClassCount {
  std::string class_name;  // "java.lang.String", "byte[]"
  uint64_t instances = 0;
  uint64_t bytes = 0;      // shallow: the objects' own sizes
};

struct Histogram {
  int64_t time_ns = 0;   // the walk's start, since the recording's time 0
  int64_t pause_ns = 0;  // how long the walk held the VM stopped
  std::vector<ClassCount> classes;  // those with objects, in no order
};

// What the histo command replies: one histogram's time and size.
struct HistogramTotals {
  int64_t time_ns = 0;
  int64_t pause_ns = 0;
  uint64_t classes = 0;    // with objects
  uint64_t instances = 0;  // objects of every class
  uint64_t bytes = 0;
};

class ClassHistogram {
 public:
  // Every `interval_ns` (0: not by time), and after every `every_gcs`-th collection (0: not by GCs).
  ClassHistogram(int64_t start_ns, int64_t interval_ns, uint32_t every_gcs)
      : start_ns_(start_ns), interval_ns_(interval_ns), every_gcs_(every_gcs) {}

  // Agent_OnLoad: the histogram's own JVMTI environment. False (with `error`) when the VM
  // cannot tag objects.
  bool init(JavaVM* vm, std::string& error);
  // VMInit: the thread that takes them.
  bool start(JNIEnv* jni);
  bool isHistogramThread(JNIEnv* jni, jthread thread) const { return thread_.is(jni, thread); }
  AgentThread& agentThread() { return thread_; }  // a session's end checks and releases it
  // A session's end: the histogram's own JVMTI environment (from init) given back.
  void dispose();
  // From the GarbageCollectionFinish callback: only an atomic increment.
  void onGcFinish() { gcs_finished_.fetch_add(1, std::memory_order_relaxed); }
  // VMDeath: stops the thread, then takes the last histogram on the calling thread (unless the
  // thread did not stop: one walk at a time).
  void finish(JNIEnv* jni, int64_t timeout_ns);

  // The histo command: one histogram now, on the calling thread (an agent thread), queued as
  // the others are. A recording without histo= gets its JVMTI environment here, the first
  // time. Under the session control mutex, so no session ends during the walk. False, with
  // `error`, when the environment cannot be had or the walk failed.
  bool takeNow(JNIEnv* jni, HistogramTotals& totals, std::string& error);

  // Writer thread: moves every histogram taken into `out` (cleared first).
  void takeAll(std::vector<Histogram>& out);

 private:
  static void run(void* self, JNIEnv* jni, AgentThread& thread);
  // One walk of the heap, queued for the writer; its totals in `totals` when given. False
  // when the walk failed.
  bool take(JNIEnv* jni, HistogramTotals* totals = nullptr);

  const int64_t start_ns_;
  const int64_t interval_ns_;
  const uint32_t every_gcs_;
  jvmtiEnv* jvmti_ = nullptr;
  AgentThread thread_;
  std::atomic<uint64_t> gcs_finished_{0};
  std::mutex walk_mutex_;  // one walk at a time: the thread's and the histo command's share the class tags
  std::mutex mutex_;  // the queue; nothing else is taken under it
  std::vector<Histogram> queue_;
};

}  // namespace stackscope::agent

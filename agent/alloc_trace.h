// The alloc trace (event=...,alloc, alloc=512k) and the live trace (event=...,live).
//
// alloc: JVMTI heap sampling (SetHeapSamplingInterval, SampledObjectAlloc, which needs the
// can_generate_sampled_object_alloc_events capability, asked for only when the trace is on).
// HotSpot picks about one object every `interval` bytes a thread allocates, the gaps drawn at
// random with that mean, and calls back on the allocating thread right after the allocation,
// outside any lock of the VM: JVMTI calls are fine there (GetStackTrace, the class's
// signature), so the callback takes the stack itself and queues it with the class (its name
// interned, object_class.h) and size;
// the writer thread names the methods, as it does for samples. GetStackTrace was 95 % of the
// callback's cost (docs/benchmarks.md): a stack is walked by it once per chain of physical
// frames and taken from the memo after that (own_stacks.h), as the lock trace's are. Objects of
// classes outside classes= and threads the annotation filter leaves out cost one check each.
//
// live: each recorded object is also tagged (SetTag, can_tag_objects) with a number the
// Alloc record carries, and JVMTI's ObjectFree event (can_generate_object_free_events) reports
// the tag when the GC frees it. ObjectFree may run inside the GC (older JVMs) or on the VM's
// service thread: no JVMTI, no JNI, no allocation, no lock there, only a lock-free ring.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "agent/bounded_queue.h"
#include "agent/mpsc_ring.h"
#include "agent/object_class.h"
#include "agent/options.h"
#include "agent/own_stacks.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

struct SampledAllocation {
  int64_t time_ns = 0;  // since the recording's time 0
  uint32_t thread = 0;  // registry id, 0 = a thread the agent does not know
  uint32_t annotation = 0;
  uint64_t size = 0;  // the object's bytes
  uint64_t tag = 0;   // live trace: the object's JVMTI tag; 0 = not followed
  // "byte[]", "java.lang.String": interned by the trace (object_class.h).
  const std::string* class_name = nullptr;
  std::vector<RawFrame> frames;  // the allocation site first
};

struct FreedObject {
  int64_t time_ns = 0;
  uint64_t tag = 0;
};

class AllocTrace {
 public:
  // More than this many allocations waiting for the writer are counted, not queued.
  static constexpr size_t kMaxQueued = 1 << 16;
  // Deaths the writer has not taken yet (16 bytes each): at 512k, a program would have to
  // free 32 GB of sampled objects within one drain period to fill it.
  static constexpr size_t kFreedCapacity = 1 << 16;

  // `wake`: the writer's (BoundedQueue).
  AllocTrace(jvmtiEnv* jvmti, int64_t start_ns, const Options& options, WriterWake* wake);

  // The JVMTI SampledObjectAlloc event, on the allocating thread.
  void onSampledAlloc(jvmtiEnv* jvmti, JNIEnv* jni, jobject object, jlong size);
  // The JVMTI ObjectFree event: lock-free, no JVMTI or JNI (see the top).
  void onObjectFree(jlong tag);

  // Writer thread: moves every queued allocation into `out` (cleared first).
  void takeAll(std::vector<SampledAllocation>& out) { queue_.takeAll(out); }
  // Writer thread: hands every reported death to fn(const FreedObject&), oldest first.
  template <typename Fn>
  void drainFreed(Fn&& fn) {
    while (const FreedObject* freed = freed_.front()) {
      fn(*freed);
      freed_.pop();
    }
  }
  // The classes= globs from now on (the control's filter command); empty: every class.
  void setClasses(std::vector<std::string> classes);
  // The classes= globs in force, in the classes= syntax ("com.shop.*;byte[]"); "": every class.
  std::string classesText() const;
  uint64_t interval() const { return interval_; }
  uint64_t dropped() const { return queue_.dropped(); }
  uint64_t freesDropped() const { return frees_dropped_.load(std::memory_order_relaxed); }
  // Objects JVMTI would not tag: they are recorded, but their deaths cannot be followed.
  uint64_t untagged() const { return untagged_.load(std::memory_order_relaxed); }
  const OwnStacks& ownStacks() const { return own_stacks_; }

 private:
  bool wanted(const std::string& class_name) const;

  const int64_t start_ns_;
  const uint64_t interval_;
  mutable std::mutex classes_mutex_;  // an allocation sample is rare: a lock costs nothing
  std::vector<std::string> classes_;  // globs (class_glob.h); empty: every class
  const bool live_;
  BoundedQueue<SampledAllocation> queue_;
  MpscRing<FreedObject> freed_;
  OwnStacks own_stacks_;  // the allocation sites' stacks
  ObjectClassNames class_names_;
  std::atomic<uint64_t> next_tag_{1};
  std::atomic<uint64_t> frees_dropped_{0};
  std::atomic<uint64_t> untagged_{0};
};

// "java.lang.String", "byte[]": the class's name as Java writes it, "<unknown>" if JVMTI
// cannot tell. On a thread where JVMTI calls are allowed.
std::string javaClassName(jvmtiEnv* jvmti, jclass klass);

}  // namespace stackscope::agent

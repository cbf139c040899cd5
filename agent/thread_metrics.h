// Per-thread metric deltas (metrics=cpu,alloc): each sample carries the CPU time and the
// bytes its thread consumed since the thread's previous sample, so a view can weigh stacks by
// CPU time or allocation instead of by sample count (docs/format.md, Sample).
//
// The counters are the thread's own: its CPU clock, and HotSpot's count of the bytes it
// allocated (Thread::_allocated_bytes, bumped as each TLAB is retired, plus what the current
// TLAB holds: what Thread::cooked_allocated_bytes computes), read through the VM's tables.
// Deltas of one thread's counters never mix processors or threads; a delta not written (the
// capture failed, the ring was full) stays in the counter and goes to the next sample, so a
// thread's deltas add up to what it consumed between its registration and its last sample.
//
// SIGNAL SAFETY: readOwn runs in the SIGPROF handler on the thread itself: one clock_gettime
// and plain loads from the calling thread's own JavaThread (alive while it runs), at offsets
// read from the VM's tables at bind().
#pragma once

#include <jni.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "agent/vm_structs.h"

namespace stackscope::agent {

// Where the bytes a thread allocated are kept in a HotSpot JavaThread.
class AllocationCounter {
 public:
  // `env_offset`: where a JNIEnv lies within its JavaThread (jniEnvOffset). False when this
  // VM's tables lack a field: the recording then has no alloc-bytes metric.
  bool bind(const VmStructs& vm, int64_t env_offset);
  // The bytes the thread of `env` allocated so far, -1 when unknown. Async-signal-safe, for
  // the calling thread's own env only: another thread's TLAB may be retired under us.
  int64_t allocatedBytes(JNIEnv* env) const;

 private:
  int64_t env_offset_ = 0;
  int64_t allocated_ = -1;  // Thread::_allocated_bytes
  int64_t tlab_start_ = -1;  // Thread::_tlab + ThreadLocalAllocBuffer::_start
  int64_t tlab_top_ = -1;
};

// A thread's counters at its last written sample; -1 = not read yet (the next reading is the base).
struct MetricBase {
  int64_t cpu_ns = -1;
  int64_t allocated = -1;
};

// What a sample carries: the counters' growth since the base, which then moves to `now`.
// CPU time in microseconds, taken from whole microseconds of both readings so that a thread's
// deltas add up to its clock to within a microsecond.
struct MetricDeltas {
  uint64_t cpu_us = 0;
  uint64_t alloc_bytes = 0;
};
MetricDeltas takeDeltas(MetricBase& base, const MetricBase& now);

// The metrics this agent records (format::SampleMetric bits) and the allocation counter, set
// once at VMInit before sampling starts; never freed (a late signal may read them).
void setSampleMetrics(uint32_t metrics, const AllocationCounter* counter);
uint32_t sampleMetrics();

// The calling thread's counters now, for the metrics on. Async-signal-safe.
MetricBase readOwnCounters(JNIEnv* env);
// Another thread's (by tid): its CPU clock only, its allocation count being unreadable from
// outside it. Not for signal handlers.
MetricBase readThreadCounters(pid_t tid);

}  // namespace stackscope::agent

// Mixed mode, cpu mode: the process's threads that JVMTI does not announce —
// the JVM's own (GC workers, JIT compilers, the VM thread, service threads) and
// native threads of JNI libraries — sampled like Java threads, each with a
// CPU-time timer that signals it. Their samples carry native frames
// (stack_capture.cpp), and Java frames too where the thread turns out to run
// Java code (a thread attached before the agent's VMInit).
//
// A periodic scan of /proc/self/task finds them: every thread that is neither a
// registered Java thread nor one of the agent's own gets a slot, a thread
// record "jvm:<OS name>", and a timer; a thread that ended, or has since been
// registered as a Java thread, loses them.
//
// After an attach in cpu mode, the Java threads already running are sampled the
// same way (adopt): no agent code runs on them to set a thread-local slot, so
// their handler finds their slot by tid here, under their own Java name.
//
// SIGNAL SAFETY: find() runs in the SIGPROF handler: a fixed table of (tid,
// slot) pairs, read with atomics only. Slots are freed only with the table, at
// a session's end once no handler runs (stackscope's stopCapture); a retired
// slot is reused only by a later scan, long after any handler that could have
// found it returned.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "agent/annotation_table.h"
#include "agent/meta_events.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

class NativeThreads {
public:
  // How many such threads are sampled at once; more are left out (and counted).
  static constexpr uint32_t kCapacity = 1024;

  // `annotations` holds the annotation filter in force: with one, the JVM's own
  // threads (never annotated) are left out, their timers disarmed.
  // `sample_unannounced`: whether a scan gives the threads JVMTI does not announce
  // slots (mixed mode); without it the table holds the adopted threads alone, and
  // a scan only finds their stacks and retires those that ended.
  NativeThreads(ThreadRegistry &registry, MetaQueue &meta,
                const AnnotationTable &annotations, int64_t interval_ns,
                int64_t start_ns, bool sample_unannounced);
  ~NativeThreads(); // frees the slots: capture must be stopped
  NativeThreads(const NativeThreads &) = delete;
  NativeThreads &operator=(const NativeThreads &) = delete;

  // One scan (see the top of this file). Not for signal handlers. The writer
  // thread calls it, and is itself never sampled (the agent's other threads run
  // in wall mode only).
  void scan();
  // Whether the process has gained or lost threads since the last scan: one
  // stat() call, so that a new thread (a GC worker, a compiler) is found within
  // a writer cycle, not a second.
  bool threadCountChanged() const;
  // Whether a thread whose stack is not known yet has since left its stack
  // pointer (stack_capture.cpp): the next scan can find that stack, and until
  // then its samples cannot step out of a stub. Reads every entry: once a cycle.
  bool stackPending() const;
  // Stops every timer; no later scan starts one. At VM death.
  void close();

  // A Java thread running before an attach (see the top): `slot` carries its id,
  // name and tid, its ThreadStart already queued; it gets a timer and is found
  // by tid from now on. The table takes the slot.
  void adopt(ThreadSlot *slot);
  // That thread's end, on the thread itself: its timer stopped, its end queued.
  void retire(pid_t tid);

  // The slot sampling thread `tid`, or null. Async-signal-safe.
  ThreadSlot *find(pid_t tid) const;
  // Moves on whenever a thread's slot is retired (calling_thread.cpp): until it does, what
  // find() answered a thread is still that thread's slot.
  uint64_t retirements() const { return retirements_.load(std::memory_order_acquire); }

  uint64_t leftOut() const { return left_out_.load(std::memory_order_relaxed); }

  // Runs fn(slot, adopted) for every thread sampled now, with the table's mutex
  // held (no timer is stopped meanwhile); `adopted`: a Java thread (see adopt).
  template <typename Fn> void forEachLocked(Fn &&fn) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (uint32_t i = 0; i < kCapacity; ++i) {
      if (entries_[i].tid.load(std::memory_order_relaxed) != 0)
        fn(*entries_[i].slot.load(std::memory_order_relaxed), entries_[i].adopted);
    }
  }

private:
  struct Entry {
    std::atomic<pid_t> tid{0}; // 0 = free
    std::atomic<ThreadSlot *> slot{nullptr};
    bool adopted = false; // under mutex_
  };

  void startLocked(pid_t tid, const std::string &comm);
  // A free entry, or null (counted as left out) when the table is full.
  Entry *freeEntryLocked();
  // Fills `entry` with `slot`: its stack found, its timer started (armed
  // unless a JVM thread left out by the filter: an adopted thread's stays armed,
  // its handler dropping the ticks while the filter leaves it out).
  void fillLocked(Entry &entry, ThreadSlot *slot, bool adopted);
  void retireLocked(Entry &entry);
  uint64_t threadCount() const;

  ThreadRegistry &registry_;
  MetaQueue &meta_;
  const AnnotationTable &annotations_;
  const int64_t interval_ns_;
  const int64_t start_ns_;
  const bool sample_unannounced_;
  Entry *entries_; // kCapacity
  std::atomic<uint64_t> left_out_{0};
  std::atomic<uint64_t> retirements_{0};

  std::mutex mutex_; // the scan and close
  bool closed_ = false;
  uint64_t scans_ = 0;
  std::atomic<uint64_t> thread_count_{0}; // at the last scan
  const int task_dir_; // /proc/self/task, open (-1 if it could not be)
  // Retired slots and the scan that retired them: reused two scans later.
  std::vector<std::pair<ThreadSlot *, uint64_t>> retired_;
};

// This process's mappings from /proc/self/maps, in address order. Not for
// signal handlers.
struct Mapping {
  uintptr_t low = 0;
  uintptr_t high = 0;
  bool readable = false;
};
std::vector<Mapping> processMappings();
// The bounds of the mapping that holds address `sp` (a thread's stack); zeros
// when none does or it is not readable. Not for signal handlers.
StackBounds mappingHolding(uintptr_t sp, const std::vector<Mapping> &mappings);
StackBounds mappingHolding(uintptr_t sp); // reads the mappings for one look
// The stack pointer of thread `tid` of this process while it waits in a system
// call (from /proc/self/task/TID/syscall), 0 when it is running or that cannot
// be read.
uintptr_t blockedStackPointer(pid_t tid);

} // namespace stackscope::agent

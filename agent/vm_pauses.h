// The time the VM held every Java thread stopped: at safepoints, garbage collections among
// them. The wall sampler is a Java thread too: the first JVMTI call it makes during such a
// pause waits for the pause's end, so it wakes late, and the ticks it missed were ticks at
// which a thread running Java code stood stopped. These clocks tell how much of the late
// time the VM was paused, and for what (wall_sampler.cpp turns it into samples).
//
// * GC: JVMTI's GarbageCollectionStart/Finish events, sent by the VM thread inside the pause,
//   where no JVMTI or JNI call is allowed: GcClock is atomics only.
// * Every safepoint: HotSpot's own PerfData counters (perf_data.h): sun.rt.safepoints (counted when one begins), sun.rt.safepointSyncTime and
//   sun.rt.safepointTime (added when it has reached all threads, and when it ends). They
//   live in the PerfMemory block that VMStructs points to; -XX:-UsePerfData leaves them out,
//   and then only GCs are told apart.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "agent/vm_structs.h"
#include "format/records.h"

namespace stackscope::agent {

// Whether a thread last seen in `state` is one a pause stops: one running Java code, one
// runnable inside the JVM (idle: asking for a GC, say) or one not looked at yet. A thread
// sleeping, waiting, parked or blocked would have done just that anyway, and one in native
// code runs on through the pause. Async-signal-safe.
inline bool stoppedByPause(uint8_t state) {
  using format::ThreadState;
  return state == static_cast<uint8_t>(ThreadState::Running) || state == static_cast<uint8_t>(ThreadState::Idle) ||
         state == static_cast<uint8_t>(ThreadState::Unknown);
}

// The pseudo-frame a sample in a pause state carries above its last Java stack ("[gc]",
// "[safepoint]"), so every view and export shows where the time went; null for other states.
inline const char* pauseFrameName(uint8_t state) {
  using format::ThreadState;
  if (state == static_cast<uint8_t>(ThreadState::Gc)) return "[gc]";
  if (state == static_cast<uint8_t>(ThreadState::Safepoint)) return "[safepoint]";
  return nullptr;
}

class GcClock {
 public:
  // Callbacks, VM thread only (one writer).
  void onStart(int64_t now_ns);
  void onFinish(int64_t now_ns);

  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // Whether a collection is running now.
  bool active() const { return start_ns_.load(std::memory_order_relaxed) != 0; }
  // Whether a collection was running at `at_ns` (not later than now): the one running now, or
  // the last one that finished. A sampler woken after a short collection ended (its wake
  // delayed by the collection itself, or by an idle CPU's) can still tell that its tick fell in it.
  bool activeAt(int64_t at_ns) const;
  // GC time of the collections that finished.
  uint64_t timeNs() const { return total_ns_.load(std::memory_order_relaxed); }
  // GC time up to `now_ns`, a collection still running included. Any thread.
  int64_t timeNsUntil(int64_t now_ns) const;

 private:
  // Odd while the writer changes start and total: a reader tries again (a seqlock).
  std::atomic<uint32_t> sequence_{0};
  std::atomic<int64_t> start_ns_{0};  // of the running collection, 0 = none
  std::atomic<int64_t> last_start_ns_{0};  // of the last collection that finished
  std::atomic<int64_t> last_end_ns_{0};
  std::atomic<uint64_t> total_ns_{0};
  std::atomic<uint64_t> count_{0};
};

// HotSpot's safepoint counters, read in place.
class SafepointCounters {
 public:
  // Finds the counters in the PerfData block at `base` (capacity bytes). False when the
  // block or one of the counters is missing; the counters then read as zero.
  bool bind(const char* base, size_t capacity);
  // Through VMStructs' PerfMemory::_start and _capacity.
  bool bind(const VmStructs& vm);
  bool bound() const { return begun_ != nullptr; }

  // Safepoints begun so far.
  uint64_t begun() const;
  // Time at the safepoints that ended so far (reaching every thread, then the operation).
  int64_t stoppedNs() const;
  // A figure that changes when a safepoint ends (its reaching time is added earlier).
  int64_t endMark() const { return operation_ticks_ ? *operation_ticks_ : 0; }

 private:
  const volatile int64_t* begun_ = nullptr;
  const volatile int64_t* sync_ticks_ = nullptr;
  const volatile int64_t* operation_ticks_ = nullptr;
  int64_t ticks_per_second_ = 1'000'000'000;
};

// Of `missed` ticks of `interval_ns`, how many the VM's pauses account for: `gc_ns` of
// GC and `stopped_ns` at safepoints of any kind (GCs' included) over the same time, of which
// `gc_ticks_given` ticks of GC were credited already (a tick that found a GC running).
struct StoppedTicks {
  uint64_t gc = 0;
  uint64_t safepoint = 0;  // at safepoints other than GCs (and a GC's own start and end)
};
StoppedTicks stoppedTicks(uint64_t missed, int64_t gc_ns, int64_t stopped_ns, int64_t interval_ns,
                          uint64_t gc_ticks_given = 0);

}  // namespace stackscope::agent

// wall mode: every interval, one sample of every live Java thread whatever its state.
// Threads that did not run since their last captured stack are not interrupted: their
// previous stack is repeated (a Repeat slot in the ring), so an idle thread costs a CPU-clock
// read per look, not a signal and a stack walk; and a thread that stays idle is looked at
// ever less often (idle_backoff.h), its repeat weighing the ticks between looks. Foreign
// threads (thread_registry.h) cannot be signalled: their stacks are read here, through JVMTI.
// The state is JVMTI's, corrected by the kernel's (thread_state.h). Renames are noticed here
// too, each thread's name being looked at about once a second.
//
// Time the VM holds threads stopped (safepoints, GCs; vm_pauses.h) is a sample of every
// thread that was running (or idle inside the JVM) at its last stack, in state `gc` or
// `safepoint`: while a GC runs the sampler makes no JVMTI call (it would wait for the GC's
// end) and credits each tick so; a pause the sampler waited in is credited when it wakes.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "agent/agent_thread.h"
#include "agent/idle_backoff.h"
#include "agent/lost_counters.h"
#include "agent/sample_slot.h"
#include "agent/thread_registry.h"
#include "agent/thread_tracker.h"
#include "agent/vm_pauses.h"
#include "agent/wall_pending.h"

namespace stackscope::agent {

class WallSampler {
 public:
  WallSampler(jvmtiEnv* jvmti, ThreadRegistry& registry, ThreadTracker& tracker, SampleRing& ring,
              LostCounters& lost, const GcClock& gc, int64_t interval_ns, int64_t start_ns)
      : jvmti_(jvmti),
        registry_(registry),
        tracker_(tracker),
        ring_(ring),
        lost_(lost),
        gc_(gc),
        interval_ns_(interval_ns),
        start_ns_(start_ns),
        max_pending_weight_(maxPendingWeight(interval_ns)),
        max_idle_period_(maxIdlePeriod(interval_ns)),
        rename_period_(static_cast<uint32_t>(std::max<int64_t>(1'000'000'000 / interval_ns, 1))),
        frames_(kMaxFrames) {}

  // Live phase only: HotSpot's safepoint counters exist from then on.
  bool start(JNIEnv* jni);
  bool stop(int64_t timeout_ns) { return thread_.stop(timeout_ns); }
  bool isSamplerThread(JNIEnv* jni, jthread thread) const { return thread_.is(jni, thread); }
  AgentThread& agentThread() { return thread_; }  // a session's end checks and releases it

 private:
  static void run(void* self, JNIEnv* jni, AgentThread& thread);
  void tick(JNIEnv* jni);
  // A tick while a GC runs: no JVMTI call. The threads stopped by it get a `gc` sample; the
  // others are looked at after it (their ticks are owed meanwhile).
  void gcTick(int64_t time_ns);
  // After a late wake that missed `missed` ticks: those the VM's pauses since `pause_mark_`
  // account for go to the threads they stopped.
  void creditStoppedTicks(uint64_t missed, int64_t time_ns);
  // `ticks` of the thread's time in `state` (gc, safepoint), at its last stack; covered, so
  // not owed any more.
  void creditStopped(ThreadSlot& slot, uint8_t state, uint64_t ticks);
  struct PauseMark {
    int64_t gc_ns = 0;       // GcClock::timeNsUntil
    int64_t stopped_ns = 0;  // SafepointCounters::stoppedNs
    uint64_t safepoints = 0;  // SafepointCounters::begun
    int64_t safepoint_end = 0;  // SafepointCounters::endMark
  };
  PauseMark pauseMark() const;
  void sampleThread(ThreadSlot& slot, pid_t pid, int64_t time_ns);
  void sampleForeign(ThreadSlot& slot, int64_t time_ns);
  // The thread's CPU clock has not moved since its last look (or, without a tid, its state
  // is the one its stack was taken in): a repeat weighing this tick and the owed ones, and
  // the next look later.
  void repeatIdle(ThreadSlot& slot, uint8_t state);
  // The thread ran: the ticks owed since its last look go to its previous stack and state,
  // and it is looked at every tick again.
  void settleOwed(ThreadSlot& slot);
  // At the end: the owed ticks of every thread, as repeats.
  void flushOwed();
  // Adds the ticks since the thread's last look to its owed ones (up to a second's worth;
  // beyond, lost as timer_overrun), and makes this tick its last look.
  void oweSkippedTicks(ThreadSlot& slot);
  // Rebuilds schedule_ from the registry's slots (which changed).
  void reschedule(const std::unordered_map<uint32_t, ThreadSlot*>& slots);
  // Queues the foreign thread's stack, read through JVMTI.
  void captureForeign(ThreadSlot& slot, uint8_t state, int64_t time_ns);
  // The thread's state (format::ThreadState) if it is alive; `cpu` its CPU clock now (-1
  // unknown), compared with the one at the last look.
  bool liveState(const ThreadSlot& slot, int64_t cpu, uint8_t& state);
  // Queues a repeat of the thread's last stack, unless the filter now leaves it out.
  void repeat(ThreadSlot& slot, uint8_t state, uint32_t weight);
  void pushRepeats(int64_t time_ns);

  jvmtiEnv* jvmti_;
  ThreadRegistry& registry_;
  ThreadTracker& tracker_;
  SampleRing& ring_;
  LostCounters& lost_;
  const GcClock& gc_;
  SafepointCounters safepoints_;
  PauseMark pause_mark_;  // at the end of the last tick
  const int64_t interval_ns_;
  const int64_t start_ns_;
  const uint32_t max_pending_weight_;
  const uint32_t max_idle_period_;
  const uint32_t rename_period_;  // ticks between two looks at one thread's name
  AgentThread thread_;
  uint64_t tick_ = 0;  // ticks due so far (a late sampler skips some: owed, see oweSkippedTicks)
  int64_t tick_start_ns_ = 0;  // monotonic
  int64_t tick_due_ns_ = 0;    // when this tick was due (monotonic): the sampler may wake later
  // This tick's look at a thread returned more than an interval after the tick began: a
  // pause held the sampler (or it waited for a CPU). That thread and the ones after it keep
  // this tick owed, for the pause's account (creditStoppedTicks) or their last state.
  bool held_ = false;
  // This tick found a GC running and gave its threads a gc sample (gcTick): that sample stands
  // for a tick of the GC time since pause_mark_, which a late wake must not credit again.
  bool gc_ticked_ = false;
  struct Scheduled {
    uint64_t next_look;  // copy of slot->next_look_tick, so threads not due are not touched
    ThreadSlot* slot;
  };
  std::vector<Scheduled> schedule_;
  // Where the next tick's looks begin: at the thread a held tick gave up on (held_), so that
  // on a machine slow enough to hold every tick the threads late in schedule_ are not the
  // ones never looked at (their whole life lost as thread_exiting at their end).
  size_t schedule_start_ = 0;
  uint64_t schedule_generation_ = UINT64_MAX;
  std::vector<jvmtiFrameInfo> frames_;  // a foreign thread's stack, before it goes to the ring
  std::vector<RepeatEntry> repeats_;  // this tick's idle threads
};

}  // namespace stackscope::agent

// The lock trace's culprits: for a thread that has waited for a lock at least the threshold
// and still waits, the thread that owns the lock and that owner's stack, taken while the
// owner holds it. Runs on the writer thread at each drain, which comes when a wait going on
// may have a look (planNextLook: every 20 ms while the budget below allows one, at least every
// kLookGapNs while waits come; writer_pacing.h), so it costs the waiting threads nothing and
// the program only a look per long wait:
//   a monitor: its owner word read from the VM's structures (monitor_owner_words.h: no
//     pause); where that names no thread (HotSpot 24's anonymous owner, a layout not known,
//     a thread not registered), GetCurrentContendedMonitor(waiter), then
//     GetObjectMonitorUsage(monitor).owner (HotSpot runs the latter as a VM operation at a
//     safepoint: a pause of the order of tens of microseconds, once per monitor and look,
//     shared by its waiters);
//   a park: the waiter's parkBlocker, when it is an AbstractOwnableSynchronizer, its
//     exclusiveOwnerThread (plain field reads);
//   then the owner's stack, taken with the owner stopped (SuspendThread, GetStackTrace,
//   ResumeThread: handshakes with the owner alone; once per owner and look) and kept only if
//   the owner holds the lock while stopped (ownerStill). Where the JVM does not grant
//   can_suspend (another environment, a debugger's, holds it: one may at a time) the stack is
//   taken unstopped and checked after, which an owner that took the lock again passes.
//   The registry's mutex is held while the owner is stopped (the SAFETY note in
//   takeOwnerStack): threads that start, end or begin a contended enter meanwhile wait for the
//   owner to reach its next safepoint poll, once per owner and look. A short critical section is often
//   over before the look reaches the owner (Jetty's handlers on one lock: 26 of 39 owner
//   stacks on JDK 25 were taken after the owner let go), and a check after an unstopped
//   GetStackTrace may find the owner holding the lock again; the owner is named either way.
// A wait shorter than the drain period may end before the look and then has no owner; waits
// (Object.wait, parks on conditions) have none by nature: the thread that will notify is not
// known until it does.
//
// The looks are bounded whatever the contention, in two budgets (rate_budget.h): waits that
// have lasted kLongWaitNs, where a culprit matters most, kLooksPerSecond on average and
// kLooksAtOnce after a quiet spell; shorter ones (past the threshold) kShortLooksPerSecond and
// kShortLooksAtOnce, so that a lock whose waits are all short still names culprits. A
// monitor's look through JVMTI pauses the program three times (a handshake with the waiter for
// its monitor, a safepoint for the owner, a handshake with the owner for its stack), about
// 100 µs of the process's CPU on HotSpot 17; through the VM's words once (the owner's stack).
// Unbounded, a program with hundreds of long waits a second paid
// several per cent of its CPU for them, and the single budget of 40 + 5 a second still cost
// LockContention 1-2 % of its CPU, its waits (2 ms) all short (docs/benchmarks.md). A wait
// refused a look for budget is tried again at the next drain while it lasts (from the long
// budget once it is long), so long waits keep their owner; the others have none, and the
// recording says how many (skipped()). A monitor enter's wait asks the budget before the
// look makes anything for it (a local reference costs more than the rest of a refused
// pass); a park asks once its blocker shows a lock (parks on anything else take none).
//
// Identity: a wait is (its thread's registry id, its monotonic start), the pair the event
// carries (LockWait), so the culprit found here joins its event when the writer drains it.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <map>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agent/lock_trace.h"
#include "agent/rate_budget.h"
#include "agent/sample_slot.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

struct LockCulprit {
  uint32_t owner = 0;            // registry id, 0 = none found
  std::vector<RawFrame> frames;  // the owner's stack at the look, innermost first
};

class LockOwners {
 public:
  static constexpr int64_t kLongWaitNs = 10'000'000;
  static constexpr int kLooksPerSecond = 5;
  static constexpr int kLooksAtOnce = 40;
  static constexpr int kShortLooksPerSecond = 1;
  static constexpr int kShortLooksAtOnce = 10;
  // While waits come that no look saw, the writer looks at least this often (writer_pacing.h).
  static constexpr int64_t kLookGapNs = 100'000'000;

  LockOwners(jvmtiEnv* jvmti, ThreadRegistry& registry, LockTrace& trace)
      : jvmti_(jvmti), registry_(registry), trace_(trace) {}
  ~LockOwners();
  LockOwners(const LockOwners&) = delete;
  LockOwners& operator=(const LockOwners&) = delete;

  // Looks for the owners of the waits that have lasted the threshold by `now` (monotonic) and
  // were not looked at yet. Before the writer drains the trace's events.
  void look(JNIEnv* jni, int64_t now);
  // When (monotonic) the writer should look again (writer_pacing.h, planNextLook); INT64_MAX
  // while the last look saw no wait going on that may want one.
  int64_t nextLookNs() const { return next_look_ns_; }
  // The culprit of a drained wait, taken out (null when none was found).
  bool take(uint32_t slot_id, int64_t start_ns, LockCulprit& out);
  // After the drain: forgets culprits of waits over before the last look, whose events were
  // drained by then (their waiter queues the event before it clears its slot).
  void forgetEnded();
  // The waits past the threshold left without a look because the budget was spent: those that
  // ended so, and those the last look refused (the recording ends before another).
  uint64_t skipped() const { return skipped_ + waiting_budget_.size(); }

 private:
  using WaitId = std::pair<uint32_t, int64_t>;  // (slot id, monotonic start)
  struct Waiter {
    WaitId wait;
    WaitSource source;
    jthread thread;            // a local reference of the writer thread
    uint64_t owner_word = 0;   // a monitor's owner as the VM's words had it (monitor_owner_words.h)
    uint32_t owner = 0;        // the registry id that word names, 0 = none: asked of JVMTI
    jthread owner_ref = nullptr;  // its local reference
  };
  // `blocker`: a park's blocker (a local reference), null for a monitor.
  uint32_t ownerOf(JNIEnv* jni, const Waiter& waiter, jobject blocker, jthread& owner_ref);
  // A wait given an owner by this look: the owner's registry id and local reference, and a
  // park's blocker (null for a monitor).
  struct Found {
    const Waiter* waiter;
    uint32_t owner;
    jthread owner_ref;
    jobject blocker;
  };
  // The stack of the owner of `waits` (all of one owner), given to those whose lock it held
  // when the stack was taken: taken with the owner stopped (JVMTI SuspendThread, where this
  // JVM grants it), and each lock's holding checked before the owner runs on.
  void takeOwnerStack(std::span<const Found> waits, JNIEnv* jni);
  // Whether the lock of `wait` is held by its owner now: a park's by its exclusiveOwnerThread,
  // a monitor by the VM's words (monitor_owner_words.h: heldBy); true for a monitor on a VM
  // whose words are not known. Under the registry's mutex (`slots`).
  bool ownerStill(JNIEnv* jni, const std::unordered_map<uint32_t, ThreadSlot*>& slots, const Found& wait);
  // After a look (`long_seen`: it saw a wait that had lasted kLongWaitNs): when the next is
  // due (nextLookNs), and from when a wait that begins wakes the writer for one
  // (LockTrace::ownerLooksFrom).
  void planNextLook(int64_t now, bool long_seen);
  // The owner of `monitor` (a local reference or null), looked up once per look.
  jthread monitorOwner(JNIEnv* jni, jobject monitor);
  uint32_t registryIdOf(JNIEnv* jni, jthread thread);
  // The budget a wait that has lasted `waited_ns` is looked at from.
  RateBudget& budgetFor(int64_t waited_ns) { return waited_ns >= kLongWaitNs ? looks_ : short_looks_; }

  jvmtiEnv* jvmti_;
  ThreadRegistry& registry_;
  LockTrace& trace_;
  std::map<WaitId, LockCulprit> culprits_;
  std::vector<WaitId> going_on_;  // the waits the last look saw
  std::vector<WaitId> unlooked_;  // those of them that may want a look and had none before it
  RateBudget looks_{kLooksPerSecond, kLooksAtOnce};                 // for waits of kLongWaitNs or more
  RateBudget short_looks_{kShortLooksPerSecond, kShortLooksAtOnce};  // for shorter ones
  std::vector<WaitId> waiting_budget_;  // the waits the last look refused for budget
  uint64_t skipped_ = 0;
  std::vector<std::pair<jobject, jthread>> seen_monitors_;  // this look's monitors and their owners (local references)
  jfieldID thread_id_ = nullptr;  // java.lang.Thread.tid
  bool bound_ = false;
  bool can_suspend_ = false;  // held (asked for at the first look): owners are stopped while their stack is taken
  int64_t next_look_ns_ = INT64_MAX;
  int64_t long_slack_ns_ = 0;  // planNextLook
};

}  // namespace stackscope::agent

#include "agent/lock_owners.h"
#include "agent/jvmti_stack.h"
#include "agent/monitor_owner_words.h"

#include <algorithm>

namespace stackscope::agent {

namespace {
// The waiters one look considers (it keeps a few local references for each); the budget
// (kLooksPerSecond) bounds the looks themselves.
constexpr size_t kMaxWaitersPerLook = 32;

// A thread stopped by SuspendThread for as long as this lives, if `jvmti` (null: not stopped)
// could stop it; resumed on every way out, so that no owner is ever left stopped.
class Stopped {
 public:
  Stopped(jvmtiEnv* jvmti, jthread thread)
      : jvmti_(jvmti && jvmti->SuspendThread(thread) == JVMTI_ERROR_NONE ? jvmti : nullptr), thread_(thread) {}
  ~Stopped() {
    if (jvmti_) jvmti_->ResumeThread(thread_);
  }
  Stopped(const Stopped&) = delete;
  Stopped& operator=(const Stopped&) = delete;

 private:
  jvmtiEnv* const jvmti_;
  const jthread thread_;
};

}  // namespace

void LockOwners::look(JNIEnv* jni, int64_t now) {
  if (!bound_) {
    bound_ = true;
    if (jclass thread = jni->FindClass("java/lang/Thread")) thread_id_ = jni->GetFieldID(thread, "tid", "J");
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    // One JVMTI environment at a time may hold can_suspend (a debugger's JDWP needs it): asked
    // for only now, once every agent of the command line has taken its own, and only if free.
    jvmtiCapabilities potential{};
    if (jvmti_->GetPotentialCapabilities(&potential) == JVMTI_ERROR_NONE && potential.can_suspend) {
      jvmtiCapabilities suspend{};
      suspend.can_suspend = 1;
      can_suspend_ = jvmti_->AddCapabilities(&suspend) == JVMTI_ERROR_NONE;
    }
  }
  // Every local reference made below goes with this frame: the writer thread never returns to Java.
  if (jni->PushLocalFrame(6 * kMaxWaitersPerLook + 8) != JNI_OK) return;
  going_on_.clear();
  unlooked_.clear();
  bool long_seen = false;  // a wait going on that has lasted kLongWaitNs, looked at or not
  looks_.refill(now);
  short_looks_.refill(now);
  std::vector<Waiter> waiters;
  std::vector<WaitId> refused;  // this look's waits left for budget
  const MonitorOwnerWords* words = boundMonitorOwnerWords();
  // Under the registry's mutex only the slots are read and local references made: the
  // JVMTI calls that may stop the VM (the owners' safepoint) come after it is released; only
  // an owner's stop needs it (takeOwnerStack). A monitor enter's look is
  // paid from the budget here, before any reference is made for it: under contention most
  // passes find the budget spent, and the references cost more than the rest of the pass.
  registry_.withSlotsLocked([&](uint64_t, auto& slots) {
    for (auto& [id, slot] : slots) {
      const int64_t start = slot->wait_start_ns.load(std::memory_order_acquire);
      if (start == 0) continue;
      const WaitId wait{id, start};
      going_on_.push_back(wait);
      const auto source = static_cast<WaitSource>(slot->wait_source.load(std::memory_order_relaxed));
      const bool may_look = source != WaitSource::ObjectWait && slot->thread_ref && culprits_.count(wait) == 0;
      if (may_look) unlooked_.push_back(wait);
      long_seen = long_seen || (may_look && now - start >= kLongWaitNs);
      if (!may_look || now - start < trace_.thresholdNs() || waiters.size() >= kMaxWaitersPerLook) continue;
      if (source == WaitSource::MonitorEnter && !budgetFor(now - start).take()) {
        refused.push_back(wait);  // tried again at the next look while it lasts
        continue;
      }
      const uint64_t owner_word = source == WaitSource::MonitorEnter && words ? words->ownerWord(*slot, start) : 0;
      waiters.push_back({wait, source, static_cast<jthread>(jni->NewLocalRef(slot->thread_ref)), owner_word});
    }
    // The owners the VM's words name, while their JavaThreads cannot go (the mutex is held).
    for (Waiter& waiter : waiters) {
      if (waiter.owner_word == 0) continue;
      for (auto& [id, slot] : slots) {
        if (id == waiter.wait.first || !slot->thread_ref || !words->names(waiter.owner_word, *slot)) continue;
        waiter.owner = id;
        waiter.owner_ref = static_cast<jthread>(jni->NewLocalRef(slot->thread_ref));
        break;
      }
    }
  });
  // A wait refused a look for budget before and over now ended without one.
  std::sort(going_on_.begin(), going_on_.end());
  for (const WaitId& wait : waiting_budget_)
    if (!std::binary_search(going_on_.begin(), going_on_.end(), wait)) ++skipped_;
  waiting_budget_ = std::move(refused);
  // Waiters of one lock share its owner, and an owner's stack is taken once: one safepoint
  // per contended monitor and one stop per owner in a look, however many wait.
  seen_monitors_.clear();
  std::vector<Found> found;
  for (const Waiter& waiter : waiters) {
    // A park on anything but a lock has no owner to look for: no pause, no budget.
    jobject blocker = waiter.source == WaitSource::Park ? trace_.parkBlocker(jni, waiter.thread) : nullptr;
    if (waiter.source == WaitSource::Park && !trace_.isOwnable(jni, blocker)) {
      culprits_[waiter.wait];  // looked at, no owner
      continue;
    }
    // A monitor enter's look was paid for above; a park on a lock pays now.
    if (waiter.source == WaitSource::Park && !budgetFor(now - waiter.wait.second).take()) {
      waiting_budget_.push_back(waiter.wait);  // tried again at the next look while it lasts
      continue;
    }
    LockCulprit& culprit = culprits_[waiter.wait];  // even when none is found: one look per wait
    jthread owner = waiter.owner_ref;
    culprit.owner = waiter.owner != 0 ? waiter.owner : ownerOf(jni, waiter, blocker, owner);
    if (culprit.owner != 0) found.push_back({&waiter, culprit.owner, owner, blocker});
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.owner < b.owner; });
  for (size_t first = 0, end = 0; first < found.size(); first = end) {
    for (end = first; end < found.size() && found[end].owner == found[first].owner;) ++end;
    takeOwnerStack({found.data() + first, end - first}, jni);
  }
  jni->PopLocalFrame(nullptr);
  planNextLook(now, long_seen);
}

void LockOwners::planNextLook(int64_t now, bool long_seen) {
  // A wait that begins from now on may have a look at its threshold, from the budget the
  // threshold falls in.
  const int64_t threshold = trace_.thresholdNs();
  trace_.ownerLooksFrom(budgetFor(threshold).nextAt());
  // The waits seen going on without a look: each once it has lasted the threshold and its
  // budget has a look, and once it has lasted kLongWaitNs (the long budget's) plus a slack.
  // Under steady contention most waits end sooner, and waking for each would be waking every
  // drain period, which this spares: the slack grows with each look that saw no long wait, up
  // to kLookGapNs, and is none again once one saw one (ShortHolds' waits of 10 ms and more
  // come in bursts, and they had half their looks with a fixed gap of kLookGapNs).
  long_slack_ns_ = long_seen ? 0 : std::min(kLookGapNs, 2 * long_slack_ns_ + kLongWaitNs);
  next_look_ns_ = INT64_MAX;
  for (const auto& [slot, start] : unlooked_) {
    if (culprits_.count({slot, start}) != 0) continue;  // looked at by this look
    const int64_t due = std::max(start + threshold, budgetFor(std::max(threshold, now - start)).nextAt());
    const int64_t long_due = std::max(start + std::max(threshold, kLongWaitNs) + long_slack_ns_, looks_.nextAt());
    next_look_ns_ = std::min({next_look_ns_, due, long_due, now + kLookGapNs});
  }
}

void LockOwners::takeOwnerStack(std::span<const Found> waits, JNIEnv* jni) {
  const Found& any = waits.front();
  std::vector<RawFrame> frames;
  std::vector<uint8_t> held(waits.size(), 0);
  registry_.withSlotsLocked([&](uint64_t, auto& slots) {
    // SAFETY (no deadlock): the owner is stopped only while this thread holds the registry's
    // mutex, so it cannot be stopped inside the agent's code that holds the mutex (which makes
    // JNI calls there, where a suspension takes effect); while it is stopped this thread takes
    // no lock of the agent's, and the stop ends before the mutex is let go.
    const Stopped stopped(can_suspend_ ? jvmti_ : nullptr, any.owner_ref);
    frames = jvmtiStack(jvmti_, any.owner_ref);
    for (size_t i = 0; i < waits.size(); ++i) held[i] = ownerStill(jni, slots, waits[i]);
  });
  // A stack taken once the owner had let the lock go (the waiter's wait ends only once it runs
  // again) is not where it held the lock: that wait keeps its owner without a stack.
  for (size_t i = 0; i < waits.size(); ++i) {
    if (!held[i]) continue;
    const auto culprit = culprits_.find(waits[i].waiter->wait);
    if (culprit != culprits_.end()) culprit->second.frames = frames;
  }
}

bool LockOwners::ownerStill(JNIEnv* jni, const std::unordered_map<uint32_t, ThreadSlot*>& slots, const Found& wait) {
  const Waiter& waiter = *wait.waiter;
  if (waiter.source == WaitSource::Park) {
    // A plain field read: the lock's owner now, against the one the look found.
    jthread now = trace_.exclusiveOwner(jni, wait.blocker);
    const bool same = now && jni->IsSameObject(now, wait.owner_ref);
    if (now) jni->DeleteLocalRef(now);
    return same;
  }
  // Whether the owner was named by the words or by JVMTI (which may have seen the monitor
  // handed to a new owner a moment before that one let it go again), the words say whether it
  // holds the monitor. Without them, JVMTI's owner is taken as it is (lock_owners.h).
  const MonitorOwnerWords* words = boundMonitorOwnerWords();
  if (!words) return true;
  const auto waiting = slots.find(waiter.wait.first);
  const auto owning = slots.find(wait.owner);
  if (waiting == slots.end() || owning == slots.end()) return false;
  // A carrier with a virtual thread mounted holds the monitor for it: its stack is the
  // carrier's own frames, and SuspendThread does not stop it (HotSpot 21+ only marks it).
  if (owning->second->mounted_vthread.load(std::memory_order_relaxed) != 0) return false;
  return words->heldBy(*waiting->second, waiter.wait.second, *owning->second);
}

LockOwners::~LockOwners() {
  if (can_suspend_) {
    jvmtiCapabilities suspend{};
    suspend.can_suspend = 1;
    jvmti_->RelinquishCapabilities(&suspend);  // free again for a debugger loaded later
  }
}

jthread LockOwners::monitorOwner(JNIEnv* jni, jobject monitor) {
  for (const auto& [seen, owner] : seen_monitors_)
    if (jni->IsSameObject(seen, monitor)) return owner;
  jvmtiMonitorUsage usage{};
  if (jvmti_->GetObjectMonitorUsage(monitor, &usage) != JVMTI_ERROR_NONE) return nullptr;
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(usage.waiters));
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(usage.notify_waiters));
  seen_monitors_.emplace_back(monitor, usage.owner);
  return usage.owner;
}

uint32_t LockOwners::ownerOf(JNIEnv* jni, const Waiter& waiter, jobject blocker, jthread& owner) {
  if (waiter.source == WaitSource::MonitorEnter) {
    jobject monitor = nullptr;
    if (jvmti_->GetCurrentContendedMonitor(waiter.thread, &monitor) != JVMTI_ERROR_NONE || !monitor) return 0;
    owner = monitorOwner(jni, monitor);
  } else {
    owner = trace_.exclusiveOwner(jni, blocker);
  }
  // A lock the waiter holds already is not its culprit (the wait ended during the look).
  if (!owner || jni->IsSameObject(owner, waiter.thread)) return 0;
  return registryIdOf(jni, owner);
}

uint32_t LockOwners::registryIdOf(JNIEnv* jni, jthread thread) {
  if (!thread_id_) return 0;
  const int64_t java_id = jni->GetLongField(thread, thread_id_);
  uint32_t id = 0;
  registry_.forEachLocked([&](ThreadSlot& slot) {
    if (slot.java_id == java_id) id = slot.id;
  });
  return id;
}

bool LockOwners::take(uint32_t slot_id, int64_t start_ns, LockCulprit& out) {
  const auto it = culprits_.find({slot_id, start_ns});
  if (it == culprits_.end()) return false;
  out = std::move(it->second);
  culprits_.erase(it);
  return out.owner != 0;
}

void LockOwners::forgetEnded() {
  // going_on_ is sorted (look).
  for (auto it = culprits_.begin(); it != culprits_.end();) {
    if (std::binary_search(going_on_.begin(), going_on_.end(), it->first)) ++it;
    else it = culprits_.erase(it);
  }
}

}  // namespace stackscope::agent

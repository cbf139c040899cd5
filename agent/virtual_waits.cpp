#include "agent/virtual_waits.h"

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/jvmti_stack.h"

namespace stackscope::agent {

namespace {

// The state of the virtual thread the calling carrier runs, as last read or written by this
// carrier: the storage is read at each mount anyway (ThreadTracker::onVirtualMount), so its
// waits cost one JVMTI call each (a write), not two. Trusted only while its id is the one the
// carrier's slot says is mounted (a mount before the lock trace began left none). Every word
// a mount of this session left is this session's (the tracker replaced an earlier one's).
// Every caller runs on the virtual thread itself (its mount, unmount and monitor events), so
// the storage is the current thread's: HotSpot reads that one from the thread's own state,
// where naming the thread costs a lookup through the threads list.
thread_local uint64_t t_mounted_state = 0;

uint64_t mountedState(jvmtiEnv* jvmti, uint32_t mounted_id) {
  if (virtualIdOf(t_mounted_state) == mounted_id) return t_mounted_state;
  void* stored = nullptr;
  if (jvmti->GetThreadLocalStorage(nullptr, &stored) != JVMTI_ERROR_NONE) stored = nullptr;
  return t_mounted_state = reinterpret_cast<uintptr_t>(stored);
}

void setState(jvmtiEnv* jvmti, uint64_t state) {
  jvmti->SetThreadLocalStorage(nullptr, reinterpret_cast<void*>(static_cast<uintptr_t>(state)));
  t_mounted_state = state;
}

// The calling carrier's slot when it runs a virtual thread this session saw mounted, else null.
ThreadSlot* mountedCarrier() {
  ThreadSlot* carrier = callingThreadSlot();
  return carrier && carrier->mounted_vthread.load(std::memory_order_acquire) != 0 ? carrier : nullptr;
}

constexpr unsigned bitOf(WaitSource source) { return 1u << static_cast<unsigned>(source); }

}  // namespace

void VirtualWaits::onUnmount() {
  ThreadSlot* carrier = mountedCarrier();
  if (!trace_.ready() || !carrier || carrier->excluded.load(std::memory_order_relaxed)) return;
  const uint64_t state = mountedState(jvmti_, carrier->mounted_vthread.load(std::memory_order_relaxed));
  // A monitor wait under way (JDK 24+ unmounts a virtual thread blocked on a monitor) keeps its start.
  if (virtualIdOf(state) == 0 || waitSourceOf(state) != WaitSource::None) return;
  setState(jvmti_, withWait(state, WaitSource::Park, monotonicNs()));
}

void VirtualWaits::onMount(JNIEnv* jni, jthread vthread, uint64_t stored) {
  t_mounted_state = stored;
  Finished wait;
  if (!finish(stored, bitOf(WaitSource::Park), wait)) return;
  const jobject blocker = trace_.parkBlocker(jni, vthread);
  if (!blocker) return;  // a sleep, I/O, a yield or a park without blocker: not told apart
  const std::string* name = trace_.classNameOf(jni, blocker);
  keep(vthread, wait, trace_.parkKind(jni, blocker, name), name);
  jni->DeleteLocalRef(blocker);
}

bool VirtualWaits::begin(JNIEnv* jni, jthread thread, WaitSource source) {
  if (!isVirtualThread(jni, thread)) return false;
  ThreadSlot* carrier = mountedCarrier();
  if (!carrier || !trace_.ready() || carrier->excluded.load(std::memory_order_relaxed)) return true;
  const uint32_t mounted = carrier->mounted_vthread.load(std::memory_order_relaxed);
  const uint64_t state = mountedState(jvmti_, mounted);
  if (virtualIdOf(state) == mounted) setState(jvmti_, withWait(state, source, monotonicNs()));
  return true;
}

bool VirtualWaits::end(JNIEnv* jni, jthread thread, jobject monitor) {
  if (!isVirtualThread(jni, thread)) return false;
  ThreadSlot* carrier = mountedCarrier();
  if (!carrier) return true;
  const uint32_t mounted = carrier->mounted_vthread.load(std::memory_order_relaxed);
  const uint64_t state = mountedState(jvmti_, mounted);
  Finished wait;
  if (virtualIdOf(state) == mounted &&
      finish(state, bitOf(WaitSource::MonitorEnter) | bitOf(WaitSource::ObjectWait), wait)) {
    const format::WaitKind kind = wait.source == WaitSource::MonitorEnter ? format::WaitKind::Lock : format::WaitKind::Wait;
    keep(thread, wait, kind, trace_.classNameOf(jni, monitor));
  }
  return true;
}

bool VirtualWaits::finish(uint64_t state, unsigned sources, Finished& out) {
  if (!trace_.ready()) return false;
  if (!(sources & bitOf(waitSourceOf(state)))) return false;
  const int64_t now = monotonicNs();
  const int64_t waited = waitedNs(state, now);
  setState(jvmti_, idleWord(virtualIdOf(state), epoch_));
  if (waited < trace_.thresholdNs()) return false;
  out = {virtualIdOf(state), waitSourceOf(state), now - waited, waited};
  return true;
}

void VirtualWaits::keep(jthread vthread, const Finished& finished, format::WaitKind kind,
                        const std::string* class_name) {
  ThreadSlot* carrier = callingThreadSlot();
  if (!carrier) return;
  if (trace_.full()) {
    trace_.drop();
    return;
  }
  LockWait wait;
  wait.time_ns = finished.start_ns - trace_.startNs();
  wait.duration_ns = finished.duration_ns;
  wait.slot_id = 0;  // no slot kept the wait: no owner look joins it (lock_owners.h)
  wait.start_ns = finished.start_ns;
  wait.thread = finished.id;
  wait.annotation = carrier->annotation.load(std::memory_order_relaxed);
  wait.kind = kind;
  wait.class_name = class_name;
  wait.frames = jvmtiStack(jvmti_, vthread);
  trace_.push(std::move(wait));
}

}  // namespace stackscope::agent

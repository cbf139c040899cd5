#include "agent/virtual_waits.h"

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/jvmti_stack.h"

namespace stackscope::agent {

namespace {

// The packed state of a virtual thread (virtual_waits.h).
static_assert(sizeof(void*) == sizeof(uint64_t), "the state is one 64-bit word");
static_assert(static_cast<unsigned>(WaitSource::Park) < 4, "a source fits in two bits");
constexpr int kSourceShift = 32;
constexpr int kStartShift = 34;
constexpr int kUnitShift = 16;  // a unit of the start: 2^16 ns
constexpr uint64_t kStartMask = (uint64_t{1} << (64 - kStartShift)) - 1;

uint32_t idOf(uint64_t state) { return static_cast<uint32_t>(state); }
WaitSource sourceOf(uint64_t state) { return static_cast<WaitSource>((state >> kSourceShift) & 3); }
uint64_t startUnits(int64_t monotonic_ns) { return (static_cast<uint64_t>(monotonic_ns) >> kUnitShift) & kStartMask; }

uint64_t withWait(uint64_t state, WaitSource source, int64_t now) {
  return idOf(state) | static_cast<uint64_t>(source) << kSourceShift | startUnits(now) << kStartShift;
}

int64_t waitedNs(uint64_t state, int64_t now) {
  const uint64_t units = (startUnits(now) - (state >> kStartShift)) & kStartMask;
  return static_cast<int64_t>(units << kUnitShift);
}

// The state of the virtual thread the calling carrier runs, as last read or written by this
// carrier: the storage is read at each mount anyway (ThreadTracker::onVirtualMount), so its
// waits cost one JVMTI call each (a write), not two. Trusted only while its id is the one the
// carrier's slot says is mounted (a mount before the lock trace began left none).
thread_local uint64_t t_mounted_state = 0;

uint64_t mountedState(jvmtiEnv* jvmti, jthread vthread, uint32_t mounted_id) {
  if (idOf(t_mounted_state) == mounted_id) return t_mounted_state;
  void* stored = nullptr;
  if (jvmti->GetThreadLocalStorage(vthread, &stored) != JVMTI_ERROR_NONE) stored = nullptr;
  return t_mounted_state = reinterpret_cast<uintptr_t>(stored);
}

void setState(jvmtiEnv* jvmti, jthread vthread, uint64_t state) {
  jvmti->SetThreadLocalStorage(vthread, reinterpret_cast<void*>(static_cast<uintptr_t>(state)));
  t_mounted_state = state;
}

// The calling carrier's slot when it runs a virtual thread, else null.
ThreadSlot* mountedCarrier() {
  ThreadSlot* carrier = callingThreadSlot();
  return carrier && carrier->mounted_vthread.load(std::memory_order_relaxed) != 0 ? carrier : nullptr;
}

constexpr unsigned bitOf(WaitSource source) { return 1u << static_cast<unsigned>(source); }

}  // namespace

void VirtualWaits::onUnmount(jthread vthread) {
  ThreadSlot* carrier = mountedCarrier();
  if (!trace_.ready() || !carrier || carrier->excluded.load(std::memory_order_relaxed)) return;
  const uint64_t state = mountedState(jvmti_, vthread, carrier->mounted_vthread.load(std::memory_order_relaxed));
  // A monitor wait under way (JDK 24+ unmounts a virtual thread blocked on a monitor) keeps its start.
  if (idOf(state) == 0 || sourceOf(state) != WaitSource::None) return;
  setState(jvmti_, vthread, withWait(state, WaitSource::Park, monotonicNs()));
}

void VirtualWaits::onMount(JNIEnv* jni, jthread vthread, uint64_t stored) {
  t_mounted_state = stored;
  Finished wait;
  if (!finish(vthread, stored, bitOf(WaitSource::Park), wait)) return;
  const jobject blocker = trace_.parkBlocker(jni, vthread);
  if (!blocker) return;  // a sleep, I/O, a yield or a park without blocker: not told apart
  const std::string* name = trace_.classNameOf(jni, blocker);
  keep(vthread, wait, trace_.parkKind(jni, blocker, name), name);
  jni->DeleteLocalRef(blocker);
}

bool VirtualWaits::begin(jthread thread, WaitSource source) {
  ThreadSlot* carrier = mountedCarrier();
  if (!carrier) return false;
  if (!trace_.ready() || carrier->excluded.load(std::memory_order_relaxed)) return true;
  const uint64_t state = mountedState(jvmti_, thread, carrier->mounted_vthread.load(std::memory_order_relaxed));
  if (idOf(state) != 0) setState(jvmti_, thread, withWait(state, source, monotonicNs()));
  return true;
}

bool VirtualWaits::end(JNIEnv* jni, jthread thread, jobject monitor) {
  ThreadSlot* carrier = mountedCarrier();
  if (!carrier) return false;
  const uint64_t state = mountedState(jvmti_, thread, carrier->mounted_vthread.load(std::memory_order_relaxed));
  Finished wait;
  if (finish(thread, state, bitOf(WaitSource::MonitorEnter) | bitOf(WaitSource::ObjectWait), wait)) {
    const format::WaitKind kind = wait.source == WaitSource::MonitorEnter ? format::WaitKind::Lock : format::WaitKind::Wait;
    keep(thread, wait, kind, trace_.classNameOf(jni, monitor));
  }
  return true;
}

bool VirtualWaits::finish(jthread vthread, uint64_t state, unsigned sources, Finished& out) {
  if (!trace_.ready()) return false;
  if (!(sources & bitOf(sourceOf(state)))) return false;
  const int64_t now = monotonicNs();
  const int64_t waited = waitedNs(state, now);
  setState(jvmti_, vthread, idOf(state));
  // The storage outlives a session: a wait noted by an earlier one is not this one's.
  if (waited < trace_.thresholdNs() || now - waited < trace_.startNs()) return false;
  out = {idOf(state), sourceOf(state), now - waited, waited};
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

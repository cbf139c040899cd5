#include "agent/lock_trace.h"

#include <string_view>

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/jvmti_stack.h"
#include "agent/monitor_owner_words.h"

namespace stackscope::agent {

namespace {

// The owners the calling thread's monitor enters named lately (LockTrace::ownerNow): owner
// word -> registry id. A word names the thread it named before for as long as no thread came
// or went (the registry's generation): a JavaThread* or a stack address is another thread's
// only once that one ended. Under steady contention a few threads own the monitors a thread
// waits for, and the scan of the registry under its mutex at every enter is the most costly
// step of the trace's own work on its waiting threads (LockContention, docs/benchmarks.md).
struct NamedOwners {
  static constexpr int kSize = 4;
  uint64_t generation = ~uint64_t{0};
  uint64_t words[kSize] = {};
  uint32_t ids[kSize] = {};
  int next = 0;

  uint32_t find(uint64_t now_generation, uint64_t word) const {
    if (now_generation != generation) return 0;
    for (int i = 0; i < kSize; ++i)
      if (words[i] == word) return ids[i];
    return 0;
  }
  void remember(uint64_t at_generation, uint64_t word, uint32_t id) {
    if (at_generation != generation) *this = {at_generation};
    words[next] = word;
    ids[next] = id;
    next = (next + 1) % kSize;
  }
};
thread_local NamedOwners t_named_owners;

}  // namespace

bool LockTrace::init(JNIEnv* jni) {
  jclass thread = jni->FindClass("java/lang/Thread");
  if (thread) park_blocker_ = jni->GetFieldID(thread, "parkBlocker", "Ljava/lang/Object;");
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  jclass ownable = jni->FindClass("java/util/concurrent/locks/AbstractOwnableSynchronizer");
  if (ownable) {
    exclusive_owner_ = jni->GetFieldID(ownable, "exclusiveOwnerThread", "Ljava/lang/Thread;");
    ownable_ = static_cast<jclass>(jni->NewGlobalRef(ownable));
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  ready_.store(true, std::memory_order_release);
  return park_blocker_ && ownable_ && exclusive_owner_;
}

void LockTrace::begin(JNIEnv* jni, WaitSource source) {
  if (!ready_.load(std::memory_order_acquire)) return;
  ThreadSlot* slot = callingThreadSlot();
  // Unknown threads (the agent's own) and those the collection-time filter leaves out pay nothing more.
  if (!slot || slot->excluded.load(std::memory_order_relaxed)) return;
  const int64_t start = monotonicNs();
  // Most contended enters that post the event wait past the threshold: the VM spins first, and
  // only a thread that spun in vain posts it (LockContention: 97 % of them recorded on JDK 25,
  // 58 % on JDK 17): the chain is read now for its stack (own_stacks.h).
  if (source == WaitSource::MonitorEnter) own_stacks_.readChainAtStart(jni, *slot, start);
  slot->wait_owner = source == WaitSource::MonitorEnter ? ownerNow(jni, *slot) : 0;
  slot->wait_source.store(static_cast<uint8_t>(source), std::memory_order_relaxed);
  slot->wait_start_ns.store(start, std::memory_order_release);
  // The writer, if in a long sleep, looks again soon: this wait may outlast the threshold. Not
  // while the look budget is spent: the writer wakes when it has a look again (writer_pacing.h).
  if (source != WaitSource::ObjectWait && wake_ && start >= owner_looks_from_ns_.load(std::memory_order_relaxed))
    wake_->nudge();
}

uint32_t LockTrace::ownerNow(JNIEnv* jni, const ThreadSlot& self) {
  const MonitorOwnerWords* words = boundMonitorOwnerWords();
  const uint64_t word = words ? words->ownOwnerWord(jni) : 0;
  if (word == 0) return 0;
  const uintptr_t object = words->anonymousOwnersObject(jni, word);
  // Named now, while the owner holds the monitor and so lives: a JavaThread* or a stack
  // address named later could be a thread's started since the owner ended. An anonymous
  // owner (a lock stack's) changes as the locks do: it is not remembered (NamedOwners).
  if (const uint32_t known = object ? 0 : t_named_owners.find(registry_.generation(), word)) return known;
  uint32_t owner = 0;
  const auto consider = [&](const ThreadSlot& other) {
    if (owner != 0 || &other == &self) return;
    if (object ? words->holdsOnLockStack(object, other) : words->names(word, other)) owner = other.id;
  };
  registry_.withSlotsLocked([&](uint64_t generation, auto& slots) {
    for (auto& [id, other] : slots) consider(*other);
    if (!object && owner != 0) t_named_owners.remember(generation, word, owner);
  });
  // One lock at a time (thread_registry.h's lock order).
  if (owner == 0 && by_tid_) by_tid_->forEachLocked([&](const ThreadSlot& other, bool adopted) { if (adopted) consider(other); });
  return owner;
}

jobject LockTrace::parkBlocker(JNIEnv* jni, jthread thread) const {
  return park_blocker_ && thread ? jni->GetObjectField(thread, park_blocker_) : nullptr;
}

bool LockTrace::isOwnable(JNIEnv* jni, jobject blocker) const {
  return blocker && ownable_ && jni->IsInstanceOf(blocker, ownable_);
}

jthread LockTrace::exclusiveOwner(JNIEnv* jni, jobject blocker) const {
  return isOwnable(jni, blocker) ? static_cast<jthread>(jni->GetObjectField(blocker, exclusive_owner_)) : nullptr;
}

format::WaitKind LockTrace::parkKind(JNIEnv* jni, jobject blocker, const std::string* class_name) const {
  if (!isOwnable(jni, blocker)) return format::WaitKind::Wait;
  const std::string_view name = class_name ? *class_name : std::string_view();
  const bool jdk_synchronizer = name.starts_with("java.util.concurrent.") && !name.starts_with("java.util.concurrent.locks.");
  return jdk_synchronizer ? format::WaitKind::Wait : format::WaitKind::Lock;
}

void LockTrace::end(JNIEnv* jni, jobject object) {
  jvmtiEnv* jvmti = jvmti_;
  ThreadSlot* slot = callingThreadSlot();
  if (!slot) return;
  const int64_t start = slot->wait_start_ns.load(std::memory_order_relaxed);
  if (start == 0) return;  // began before the trace, or by a thread the filter left out
  const int64_t now = monotonicNs();
  const auto source = static_cast<WaitSource>(slot->wait_source.load(std::memory_order_relaxed));
  if (now - start >= threshold_ns_ && !queue_.full()) {
    LockWait wait;
    wait.time_ns = start - start_ns_;
    wait.duration_ns = now - start;
    wait.slot_id = slot->id;
    wait.start_ns = start;
    // A monitor wait here is the OS thread's own: a virtual thread's goes to virtual_waits.h
    // (by the callback's thread), so one on a carrier with a virtual thread mounted is the
    // carrier's. A park here with one mounted is that virtual thread's: pinned, it parks its carrier.
    const uint32_t vthread = slot->mounted_vthread.load(std::memory_order_relaxed);
    wait.thread = vthread != 0 && source == WaitSource::Park ? vthread : slot->id;
    wait.annotation = slot->annotation.load(std::memory_order_relaxed);
    wait.owner = source == WaitSource::MonitorEnter ? slot->wait_owner : 0;
    jobject lock = object;
    if (source == WaitSource::Park) {
      // The blocker is still set: LockSupport clears it after Unsafe.park returns.
      jthread self = nullptr;
      if (jvmti->GetCurrentThread(&self) == JVMTI_ERROR_NONE) lock = parkBlocker(jni, self);
      if (self) jni->DeleteLocalRef(self);
    }
    if (lock) wait.class_name = class_names_.nameOf(jni, lock);
    wait.zero_length_int_array =
        wait.class_name && *wait.class_name == "int[]" && jni->GetArrayLength(static_cast<jarray>(lock)) == 0;
    if (source == WaitSource::Park) {
      wait.kind = parkKind(jni, lock, wait.class_name);
    } else {
      wait.kind = source == WaitSource::MonitorEnter ? format::WaitKind::Lock : format::WaitKind::Wait;
    }
    if (lock && lock != object) jni->DeleteLocalRef(lock);
    // The cheaper walk from the thread's last Java frame (jvmti_stack.h) for a park (in the
    // wrapped native) and Object.wait (the frame anchor is its native's). Not for a monitor
    // enter: compiled code waits inside C2's runtime stub, which that walk does not step over
    // (jvmti_stack.h); GetStackTrace walks it, once per chain of physical frames (own_stacks.h).
    wait.frames = source == WaitSource::MonitorEnter ? own_stacks_.stack(jvmti, jni, slot, start) : callingThreadStack(jvmti, jni);
    queue_.push(std::move(wait));
  } else if (now - start >= threshold_ns_) {
    queue_.drop();
  }
  // Only after the push: the writer thread relies on a wait it saw going on having its
  // event queued once the slot no longer shows it (lock_owners.h).
  slot->wait_start_ns.store(0, std::memory_order_release);
}

}  // namespace stackscope::agent

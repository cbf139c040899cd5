#include "agent/thread_tracker.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <cstdio>
#include <vector>

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/java_thread_tids.h"
#include "agent/proc_task.h"
#include "agent/vm_structs.h"
#include "agent/wall_pending.h"
#include "native/process_threads.h"

namespace stackscope::agent {

namespace {

// The calling thread's stack, for the signal handler's stub unwinding; unknown (zeros) when
// glibc cannot tell, and then the handler does not try.
StackBounds currentThreadStack() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return {};
  void* low = nullptr;
  size_t size = 0;
  const bool known = pthread_attr_getstack(&attr, &low, &size) == 0;
  pthread_attr_destroy(&attr);
  if (!known) return {};
  return {reinterpret_cast<uintptr_t>(low), reinterpret_cast<uintptr_t>(low) + size};
}

// The VM's account of a thread's stack, kept only where it lies in one readable mapping (the
// part above the guard pages): the signal handler reads what these bounds allow.
StackBounds checkedStack(StackBounds vm_stack, const std::vector<Mapping>& mappings) {
  if (vm_stack.base <= vm_stack.low) return {};
  const StackBounds mapping = mappingHolding(vm_stack.base - 8, mappings);
  if (mapping.base <= mapping.low) return {};
  const StackBounds kept{std::max(vm_stack.low, mapping.low), std::min(vm_stack.base, mapping.base)};
  return kept.low < kept.base ? kept : StackBounds{};
}

// `tid` if the process has that task (a tid read from the VM for a thread that exited since
// is not one), else 0.
pid_t listedTid(pid_t tid, const std::vector<native::ProcessThread>& tasks) {
  for (const native::ProcessThread& task : tasks) {
    if (tid != 0 && task.tid == tid) return tid;
  }
  return 0;
}

// The tid of the thread listed i-th when the VM does not tell it, found by its OS name among the tasks; 0 when that is
// not certain: another Java thread shares the name's first 15 bytes, or not exactly one task
// has it (HotSpot names the OS thread as the Java thread starts running; the launcher's main
// thread keeps its own name).
pid_t tidByOsName(const std::vector<std::string>& os_names, size_t i, const std::vector<native::ProcessThread>& tasks) {
  const std::string& name = os_names[i];
  if (name.empty() || std::count(os_names.begin(), os_names.end(), name) != 1) return 0;
  pid_t found = 0;
  for (const native::ProcessThread& task : tasks) {
    if (task.name != name) continue;
    if (found != 0) return 0;
    found = task.tid;
  }
  return found;
}

// The Java main thread runs on the launcher's second OS thread, which keeps the launcher's
// name ("java": the process's own, as the first thread, the pid, has it too, waiting for
// main to end): the one other thread of that name. 0 when there is not exactly one.
pid_t mainThreadTid(const std::vector<native::ProcessThread>& tasks) {
  pid_t found = 0;
  const pid_t pid = getpid();
  std::string launcher;
  for (const native::ProcessThread& task : tasks) {
    if (task.tid == pid) launcher = task.name;
  }
  for (const native::ProcessThread& task : tasks) {
    if (task.tid == pid || launcher.empty() || task.name != launcher) continue;
    if (found != 0) return 0;
    found = task.tid;
  }
  return found;
}

}  // namespace

void ThreadTracker::init(JNIEnv* jni) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (thread_class) {
    get_id_.store(jni->GetMethodID(thread_class, "getId", "()J"));
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    name_field_.store(jni->GetFieldID(thread_class, "name", "Ljava/lang/String;"));
    jni->DeleteLocalRef(thread_class);
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

std::string ThreadTracker::threadName(jthread thread) {
  jvmtiThreadInfo info{};
  if (jvmti_->GetThreadInfo(thread, &info) != JVMTI_ERROR_NONE) return {};
  std::string name = info.name ? info.name : "";
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(info.name));
  return name;  // the thread group and class loader local refs die with the callback's frame
}

int64_t ThreadTracker::javaId(JNIEnv* jni, jthread thread) {
  const jmethodID get_id = get_id_.load();
  if (!get_id) return 0;
  const jlong id = jni->CallLongMethod(thread, get_id);
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    return 0;
  }
  return id;
}

uint32_t ThreadTracker::earlierIdOnOsThread(pid_t tid, uint64_t os_start) {
  std::lock_guard<std::mutex> lock(ended_mutex_);
  auto it = ended_.find(tid);
  if (it == ended_.end()) return 0;
  // The same tid and the same start time: the same OS thread. Only the tid: the kernel gave
  // an exited thread's tid to a new one.
  const uint32_t id = it->second.os_start == os_start ? it->second.id : 0;
  ended_.erase(it);
  return id;
}

void ThreadTracker::rememberOsThread(const ThreadSlot& slot) {
  if (slot.tid == 0 || slot.os_start == 0) return;
  std::lock_guard<std::mutex> lock(ended_mutex_);
  // Bounded: a program that churns through threads forgets the oldest candidates (clearing
  // all at once is enough: a forgotten one only gets a new id).
  constexpr size_t kMaxRemembered = 4096;
  if (ended_.size() >= kMaxRemembered) ended_.clear();
  ended_[slot.tid] = {slot.id, slot.os_start};
}

ThreadSlot* ThreadTracker::newSlot(JNIEnv* jni, jthread thread, pid_t tid, MetaEvent& start) {
  auto* slot = new ThreadSlot;
  native::ThreadStat os;
  if (tid != 0 && native::readThreadStat(getpid(), tid, os)) slot->os_start = os.start_time;
  const uint32_t earlier = tid != 0 && slot->os_start != 0 ? earlierIdOnOsThread(tid, slot->os_start) : 0;
  slot->id = earlier != 0 ? earlier : registry_.nextId();
  slot->tid = tid;
  slot->thread_ref = jni->NewGlobalRef(thread);
  slot->name = threadName(thread);
  if (const jfieldID field = name_field_.load()) {
    const jobject name = jni->GetObjectField(thread, field);
    slot->name_ref = name ? jni->NewWeakGlobalRef(name) : nullptr;
    jni->DeleteLocalRef(name);
  }
  slot->java_id = javaId(jni, thread);
  // With a filter, a thread is left out until an annotation that matches it: its timer is
  // created disarmed and the wall sampler skips it.
  slot->excluded.store(!annotations_.filterEmpty(), std::memory_order_relaxed);

  start.kind = MetaEvent::Kind::ThreadStart;
  start.time_ns = monotonicNs() - start_ns_;
  start.thread = slot->id;
  start.has_record = true;
  start.record = {slot->id, slot->name, tid, slot->java_id};
  return slot;
}

uintptr_t ThreadTracker::onVirtualMount(JNIEnv* jni, jthread vthread) {
  ThreadSlot* carrier = callingThreadSlot();
  if (!carrier) return 0;  // a carrier the agent does not sample (not registered, or too late)
  // The storage of the current thread, which in this event is the virtual thread being
  // mounted: HotSpot reads it straight from the thread's state, where naming the thread costs
  // a lookup through the threads list (a third of the mount's cost with the agent, JDK 25).
  void* stored = nullptr;
  if (jvmti_->GetThreadLocalStorage(nullptr, &stored) != JVMTI_ERROR_NONE) stored = nullptr;
  uintptr_t word = reinterpret_cast<uintptr_t>(stored);
  uint32_t id = virtualIdOf(word);
  // A word an earlier session wrote holds that session's id, which may be another thread's
  // in this one: the thread is new to this session. The clock only for a word noting a wait.
  const int64_t now = waitSourceOf(word) == WaitSource::None ? 0 : monotonicNs();
  if (id == 0 || !writtenBy(word, virtual_epoch_, now)) {
    id = registry_.nextId();
    word = idleWord(id, virtual_epoch_);
    jvmti_->SetThreadLocalStorage(nullptr, reinterpret_cast<void*>(word));
    MetaEvent start;
    start.kind = MetaEvent::Kind::ThreadStart;
    start.time_ns = monotonicNs() - start_ns_;
    start.thread = id;
    start.has_record = true;
    // No OS tid of its own: it runs on whichever carrier mounts it.
    start.record = {id, threadName(vthread), 0, javaId(jni, vthread)};
    start.record.is_virtual = true;
    meta_.push(std::move(start));
  }
  carrier->mounted_vthread.store(id, std::memory_order_release);
  return word;
}

void ThreadTracker::onVirtualUnmount() {
  if (ThreadSlot* carrier = callingThreadSlot()) carrier->mounted_vthread.store(0, std::memory_order_release);
}

void ThreadTracker::noticeRename(JNIEnv* jni, ThreadSlot& slot) {
  const jfieldID field = name_field_.load();
  if (!field || !slot.thread_ref) return;
  const jobject now = jni->GetObjectField(slot.thread_ref, field);
  // Names are immutable strings: the same object is the same name. A weak reference to an
  // old name the GC took compares unequal, and the name is then read to be sure.
  if (!jni->IsSameObject(now, slot.name_ref)) {
    if (slot.name_ref) jni->DeleteWeakGlobalRef(slot.name_ref);
    slot.name_ref = now ? jni->NewWeakGlobalRef(now) : nullptr;
    std::string name = threadName(slot.thread_ref);
    if (!name.empty() && name != slot.name) {
      slot.name = name;
      MetaEvent rename;
      rename.kind = MetaEvent::Kind::Rename;
      rename.time_ns = monotonicNs() - start_ns_;
      rename.thread = slot.id;
      rename.has_record = true;
      rename.record = {slot.id, std::move(name), slot.tid, slot.java_id};
      meta_.push(std::move(rename));
    }
  }
  jni->DeleteLocalRef(now);
}

void ThreadTracker::release(JNIEnv* jni, ThreadSlot* slot) {
  if (slot->name_ref) jni->DeleteWeakGlobalRef(slot->name_ref);
  jni->DeleteGlobalRef(slot->thread_ref);
  delete slot;
}

void ThreadTracker::onStart(JNIEnv* jni, jthread thread) {
  // HotSpot also posts ThreadStart for the main thread, after VMInit registered it.
  if (currentThreadSlot()) return;
  MetaEvent start;
  ThreadSlot* slot = newSlot(jni, thread, gettid(), start);
  slot->env = jni;
  slot->stack = currentThreadStack();
  slot->metric_base = readOwnCounters(jni);  // its samples carry what it consumes from now on

  // The slot is the thread's before its timer can fire, so no tick finds it unknown.
  setCurrentThreadSlot(slot);
  const ThreadRegistry::AddResult added =
      registry_.add(slot, options_.mode == SampleMode::Cpu ? options_.interval_ns : 0, jni, std::move(start));
  if (added == ThreadRegistry::AddResult::Closed || added == ThreadRegistry::AddResult::Present) {
    setCurrentThreadSlot(nullptr);
    release(jni, slot);
    return;
  }
  if (added == ThreadRegistry::AddResult::AddedWithoutTimer && !timer_warned_.exchange(true)) {
    std::fprintf(stderr, "stackscope: cannot create a CPU timer for thread '%s'; it is not sampled\n",
                 slot->name.c_str());
  }
}

void ThreadTracker::forEachRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread), bool with_stacks,
                                   const std::function<void(const Running&)>& fn) {
  jint count = 0;
  jthread* threads = nullptr;
  if (jvmti_->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return;
  std::vector<std::string> os_names(static_cast<size_t>(count));
  for (jint i = 0; i < count; ++i) os_names[i] = osThreadName(threadName(threads[i]));
  const std::vector<native::ProcessThread> tasks = native::listThreads(getpid());
  VmStructs vm;
  JavaThreadTids tids;
  const bool by_vm = vm.bind(lookupJvmSymbol) && tids.bind(vm, jni);
  const std::vector<Mapping> mappings = with_stacks ? processMappings() : std::vector<Mapping>{};
  for (jint i = 0; i < count; ++i) {
    pid_t tid = by_vm ? listedTid(tids.tidOf(jni, threads[i]), tasks) : 0;
    if (tid == 0) tid = tidByOsName(os_names, i, tasks);
    if (tid == 0 && os_names[i] == "main") tid = mainThreadTid(tasks);
    const StackBounds stack = with_stacks && by_vm && tid != 0 ? checkedStack(tids.stackOf(jni, threads[i]), mappings) : StackBounds{};
    const uintptr_t java_thread = by_vm && tid != 0 ? tids.javaThreadOf(jni, threads[i]) : 0;
    if (!is_agent_thread(jni, threads[i])) fn({threads[i], tid, stack, java_thread});
    jni->DeleteLocalRef(threads[i]);
  }
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(threads));
}

void ThreadTracker::registerRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread)) {
  // cpu mode leaves the foreign threads out: no agent code runs on them to set the
  // thread-local slot their handler would look for (after an attach, adoptRunning does).
  // Traces alone (no sampling) need them too: their callbacks on a thread that ran before an
  // attach find it here (calling_thread.h), or record no wait and no thread.
  if (options_.mode == SampleMode::Cpu) return;
  // Their stacks name them as monitors' owners (a lock record's address, before HotSpot 24).
  const bool with_stacks = (options_.traces & kTraceLock) != 0;
  forEachRunning(jni, is_agent_thread, with_stacks, [&](const Running& running) { registerForeign(jni, running); });
}

void ThreadTracker::adoptRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread),
                                 NativeThreads& table) {
  forEachRunning(jni, is_agent_thread, true, [&](const Running& running) {
    if (running.tid == 0) return;  // its OS thread not found by name: it cannot be given a timer
    MetaEvent start;
    ThreadSlot* slot = newSlot(jni, running.thread, running.tid, start);
    slot->stack = running.stack;  // else the table finds it from a stack pointer (native_threads.h)
    slot->java_thread = running.java_thread;
    slot->metric_base = readThreadCounters(running.tid);
    // The table has no JNI to release references with; its slots need none.
    if (slot->name_ref) jni->DeleteWeakGlobalRef(slot->name_ref);
    jni->DeleteGlobalRef(slot->thread_ref);
    slot->name_ref = nullptr;
    slot->thread_ref = nullptr;
    meta_.push(std::move(start));  // before its timer: the record precedes the samples
    table.adopt(slot);
  });
}

void ThreadTracker::registerForeign(JNIEnv* jni, const Running& running) {
  MetaEvent start;
  ThreadSlot* slot = newSlot(jni, running.thread, running.tid, start);
  slot->foreign = true;
  slot->stack = running.stack;  // read by no sampler: foreign threads are sampled through JVMTI
  slot->java_thread = running.java_thread;
  slot->metric_base = readThreadCounters(running.tid);
  // Present: main, or a thread whose own ThreadStart came first.
  if (registry_.addForeign(slot, jni, std::move(start)) != ThreadRegistry::AddResult::Added) release(jni, slot);
}

void ThreadTracker::onEnd(JNIEnv* jni, jthread thread) {
  // Out of the registry first: from then on the wall sampler cannot signal it, and its
  // timer is gone. A signal already pending finds no slot and is counted as lost.
  ThreadSlot* slot = nullptr;
  if (ThreadSlot* current = currentThreadSlot()) {
    slot = registry_.remove(current->id);
    setCurrentThreadSlot(nullptr);
    // A signal still pending now counts its own tick as lost when it finds no slot; the
    // ticks that waited for its capture (wall_pending.h) are lost with it.
    if (slot) {
      if (const uint32_t waiting = takePendingWeight(slot->wall_pending); waiting > 1) {
        lost_.add(format::LostReason::ThreadExiting, waiting - 1);
      }
    }
    if (slot) rememberOsThread(*slot);
  } else {
    // A foreign thread, or one that is not ours (an agent thread) or registered too late.
    slot = registry_.removeForeign(jni, thread);
  }
  if (!slot) return;
  // Ticks the wall sampler owed an idle thread (idle_backoff.h) that no look will pay now.
  if (slot->scheduled) {
    const uint64_t since_look = registry_.wall_tick.load(std::memory_order_relaxed) - slot->last_look_tick;
    if (const uint64_t owed = slot->owed_ticks + since_look) lost_.add(format::LostReason::ThreadExiting, owed);
  }

  MetaEvent event;
  event.kind = MetaEvent::Kind::ThreadEnd;
  event.time_ns = monotonicNs() - start_ns_;
  event.thread = slot->id;
  // Threads are often renamed after they start (pools); the reader keeps the last record.
  std::string name = threadName(thread);
  if (!name.empty() && name != slot->name) {
    event.has_record = true;
    event.record = {slot->id, std::move(name), slot->tid, slot->java_id};
  }
  meta_.push(std::move(event));
  release(jni, slot);
}

void ThreadTracker::dropForeign(JNIEnv* jni) {
  std::vector<ThreadSlot*> slots;
  registry_.removeAllForeign(slots);
  for (ThreadSlot* slot : slots) release(jni, slot);
}

void ThreadTracker::dropAll(JNIEnv* jni) {
  std::vector<ThreadSlot*> slots;
  registry_.removeAll(slots);
  for (ThreadSlot* slot : slots) release(jni, slot);
}

}  // namespace stackscope::agent

#include "agent/thread_tracker.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "agent/clocks.h"
#include "agent/wall_pending.h"

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

}  // namespace

void ThreadTracker::init(JNIEnv* jni) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (thread_class) {
    get_id_.store(jni->GetMethodID(thread_class, "getId", "()J"));
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

ThreadSlot* ThreadTracker::newSlot(JNIEnv* jni, jthread thread, pid_t tid, MetaEvent& start) {
  auto* slot = new ThreadSlot;
  slot->id = registry_.nextId();
  slot->tid = tid;
  slot->thread_ref = jni->NewGlobalRef(thread);
  slot->name = threadName(thread);
  // With a filter, a thread is left out until an annotation that matches it: its timer is
  // created disarmed and the wall sampler skips it.
  slot->excluded.store(!options_.filter.empty(), std::memory_order_relaxed);

  start.kind = MetaEvent::Kind::ThreadStart;
  start.time_ns = monotonicNs() - start_ns_;
  start.thread = slot->id;
  start.has_record = true;
  start.record = {slot->id, slot->name, tid, javaId(jni, thread)};
  return slot;
}

void ThreadTracker::release(JNIEnv* jni, ThreadSlot* slot) {
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

void ThreadTracker::registerRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread)) {
  // cpu mode leaves the foreign threads out: a per-thread CPU timer must be created on its
  // thread, and no code of the agent ever runs on them.
  if (options_.mode != SampleMode::Wall) return;
  jint count = 0;
  jthread* threads = nullptr;
  if (jvmti_->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return;
  for (jint i = 0; i < count; ++i) {
    if (!is_agent_thread(jni, threads[i])) registerForeign(jni, threads[i]);
    jni->DeleteLocalRef(threads[i]);
  }
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(threads));
}

void ThreadTracker::registerForeign(JNIEnv* jni, jthread thread) {
  MetaEvent start;
  ThreadSlot* slot = newSlot(jni, thread, 0, start);
  slot->foreign = true;
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
  } else {
    // A foreign thread, or one that is not ours (an agent thread) or registered too late.
    slot = registry_.removeForeign(jni, thread);
  }
  if (!slot) return;

  MetaEvent event;
  event.kind = MetaEvent::Kind::ThreadEnd;
  event.time_ns = monotonicNs() - start_ns_;
  event.thread = slot->id;
  // Threads are often renamed after they start (pools); the reader keeps the last record.
  std::string name = threadName(thread);
  if (!name.empty() && name != slot->name) {
    event.has_record = true;
    event.record = {slot->id, std::move(name), slot->tid, javaId(jni, thread)};
  }
  meta_.push(std::move(event));
  release(jni, slot);
}

void ThreadTracker::dropForeign(JNIEnv* jni) {
  std::vector<ThreadSlot*> slots;
  registry_.removeAllForeign(slots);
  for (ThreadSlot* slot : slots) release(jni, slot);
}

}  // namespace stackscope::agent

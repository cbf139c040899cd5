#include "agent/thread_tracker.h"

#include <unistd.h>

#include <cstdio>

#include "agent/clocks.h"

namespace stackscope::agent {

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

void ThreadTracker::onStart(JNIEnv* jni, jthread thread) {
  // HotSpot also posts ThreadStart for the main thread, after VMInit registered it.
  if (currentThreadSlot()) return;
  auto* slot = new ThreadSlot;
  slot->env = jni;
  slot->id = registry_.nextId();
  slot->tid = gettid();
  slot->thread_ref = jni->NewGlobalRef(thread);
  slot->name = threadName(thread);
  // With a filter, a thread is left out until an annotation that matches it: its timer is
  // created disarmed and the wall sampler skips it.
  slot->excluded.store(!options_.filter.empty(), std::memory_order_relaxed);

  MetaEvent event;
  event.kind = MetaEvent::Kind::ThreadStart;
  event.time_ns = monotonicNs() - start_ns_;
  event.thread = slot->id;
  event.has_record = true;
  event.record = {slot->id, slot->name, slot->tid, javaId(jni, thread)};
  // Queued before the thread can be sampled, so its record precedes its samples.
  meta_.push(std::move(event));

  // The slot is the thread's before its timer can fire, so no tick finds it unknown.
  setCurrentThreadSlot(slot);
  const ThreadRegistry::AddResult added = registry_.add(slot, options_.mode == SampleMode::Cpu ? options_.interval_ns : 0);
  if (added == ThreadRegistry::AddResult::Closed) {  // the VM is dying
    setCurrentThreadSlot(nullptr);
    jni->DeleteGlobalRef(slot->thread_ref);
    delete slot;
    return;
  }
  if (added == ThreadRegistry::AddResult::AddedWithoutTimer && !timer_warned_.exchange(true)) {
    std::fprintf(stderr, "stackscope: cannot create a CPU timer for thread '%s'; it is not sampled\n",
                 slot->name.c_str());
  }
}

void ThreadTracker::onEnd(JNIEnv* jni, jthread thread) {
  ThreadSlot* current = currentThreadSlot();
  if (!current) return;  // not ours (an agent thread) or registered too late
  // Out of the registry first: from then on the wall sampler cannot signal it, and its
  // timer is gone. A signal already pending finds no slot and is counted as lost.
  ThreadSlot* slot = registry_.remove(current->id);
  setCurrentThreadSlot(nullptr);
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
  jni->DeleteGlobalRef(slot->thread_ref);
  delete slot;
}

}  // namespace stackscope::agent

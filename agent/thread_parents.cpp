#include "agent/thread_parents.h"

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/jvmti_stack.h"
#include "agent/session_gate.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

namespace {

using StartFunction = void(JNICALL*)(JNIEnv*, jobject);

std::atomic<ThreadParents*> g_parents{nullptr};
// HotSpot's JVM_StartThread; set before the wrapper is bound, so the wrapper always finds it.
std::atomic<StartFunction> g_original{nullptr};

// Runs on the starting thread, in native code, as the JVM's function would: JNI and JVMTI
// calls are allowed, and the agent holds no lock around the start.
void JNICALL startWrapper(JNIEnv* jni, jobject thread) {
  {
    SessionUse use;  // the notes are a session's (session_gate.h)
    ThreadParents* parents = use ? g_parents.load(std::memory_order_acquire) : nullptr;
    if (parents) parents->onStart(jni, thread);
  }
  g_original.load(std::memory_order_acquire)(jni, thread);
}

}  // namespace

jfieldID ThreadParents::tidField(JNIEnv* jni) {
  jfieldID field = tid_.load(std::memory_order_acquire);
  if (field) return field;
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (thread_class) field = jni->GetFieldID(thread_class, "tid", "J");
  if (jni->ExceptionCheck()) jni->ExceptionClear();  // no such field: a JDK we do not know
  if (thread_class) jni->DeleteLocalRef(thread_class);
  if (field) tid_.store(field, std::memory_order_release);
  return field;
}

void ThreadParents::onStart(JNIEnv* jni, jobject thread) {
  if (queue_.full()) {
    queue_.drop();
    return;
  }
  const jfieldID tid = tidField(jni);
  if (!tid || !thread) return;
  ThreadStartNote note;
  note.time_ns = monotonicNs() - start_ns_;
  note.child_java_id = jni->GetLongField(thread, tid);
  if (const ThreadSlot* slot = callingThreadSlot()) {
    const uint32_t vthread = slot->mounted_vthread.load(std::memory_order_relaxed);
    note.parent = vthread != 0 ? vthread : slot->id;
  }
  note.frames = callingThreadStack(jvmti_, jni);
  queue_.push(std::move(note));
}

void setThreadParents(ThreadParents* parents) { g_parents.store(parents, std::memory_order_release); }

void* wrapThreadStart(void* original) {
  g_original.store(reinterpret_cast<StartFunction>(original), std::memory_order_release);
  return reinterpret_cast<void*>(&startWrapper);
}

bool isThreadStartWrapper(const void* address) { return address == reinterpret_cast<const void*>(&startWrapper); }

bool threadStartHooked() { return g_original.load(std::memory_order_acquire) != nullptr; }

}  // namespace stackscope::agent

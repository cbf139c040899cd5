#include "agent/exception_trace.h"

#include <cstring>

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/jvmti_stack.h"
#include "agent/thread_registry.h"
#include "agent/throwable_hook.h"

namespace stackscope::agent {

ExceptionTrace::ExceptionTrace(jvmtiEnv* jvmti, int64_t start_ns, bool created, AgentThreadTest is_agent_thread,
                               WriterWake* wake)
    : jvmti_(jvmti),
      start_ns_(start_ns),
      created_(created),
      is_agent_thread_(is_agent_thread),
      queue_(kMaxQueued, wake),
      class_names_(jvmti) {}

bool ExceptionTrace::start(JNIEnv* jni, ThrownException& event) {
  const ThreadSlot* slot = callingThreadSlot();
  // A thread the collection-time filter leaves out pays nothing more.
  if (slot && slot->excluded.load(std::memory_order_relaxed)) return false;
  if (!slot) {
    // The agent's own threads have no slot; neither do threads the tracker has not met yet.
    jthread self = nullptr;
    const bool own = jvmti_->GetCurrentThread(&self) == JVMTI_ERROR_NONE && is_agent_thread_(jni, self);
    if (self) jni->DeleteLocalRef(self);
    if (own) return false;
  }
  if (queue_.full()) {  // before the work; push decides
    queue_.drop();
    return false;
  }
  event.time_ns = monotonicNs() - start_ns_;
  if (slot) {
    const uint32_t vthread = slot->mounted_vthread.load(std::memory_order_relaxed);
    event.thread = vthread != 0 ? vthread : slot->id;
    event.annotation = slot->annotation.load(std::memory_order_relaxed);
  }
  return true;
}

void ExceptionTrace::onException(JNIEnv* jni, jobject exception, jmethodID catch_method) {
  ThrownException thrown;
  if (!start(jni, thrown)) return;
  thrown.uncaught = catch_method == nullptr;
  thrown.class_name = class_names_.nameOf(jni, exception);
  RawFrame frames[kMaxFrames];
  const ThreadSlot* slot = callingThreadSlot();
  const size_t count = own_stacks_.stackInto(jvmti_, jni, slot, 0, frames);
  queue_.push(std::move(thrown), {frames, count});
}

void ExceptionTrace::onCreated(JNIEnv* jni, jobject throwable) {
  ThrownException created;
  if (!start(jni, created)) return;
  created.created = true;
  created.class_name = class_names_.nameOf(jni, throwable);
  RawFrame frames[kMaxFrames];
  const size_t count = callingThreadStackInto(jvmti_, jni, frames);
  queue_.push(std::move(created), {frames, count});
}

bool ExceptionTrace::isConstructionMethod(JNIEnv* jni, const void* method) {
  const auto found = construction_methods_.find(method);
  if (found != construction_methods_.end()) return found->second;
  if (!throwable_) {
    jclass local = jni->FindClass("java/lang/Throwable");
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    if (local) throwable_ = static_cast<jclass>(jni->NewGlobalRef(local));
    if (local) jni->DeleteLocalRef(local);
  }
  auto id = static_cast<jmethodID>(const_cast<void*>(method));
  char* name = nullptr;
  jclass holder = nullptr;
  bool construction = false;
  if (throwable_ && jvmti_->GetMethodName(id, &name, nullptr, nullptr) == JVMTI_ERROR_NONE && name &&
      (std::strcmp(name, "<init>") == 0 || std::strcmp(name, "fillInStackTrace") == 0) &&
      jvmti_->GetMethodDeclaringClass(id, &holder) == JVMTI_ERROR_NONE && holder) {
    construction = jni->IsAssignableFrom(holder, throwable_);
  }
  if (name) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(name));
  if (holder) jni->DeleteLocalRef(holder);
  construction_methods_.emplace(method, construction);
  return construction;
}

size_t ExceptionTrace::constructionFrames(JNIEnv* jni, std::span<const RawFrame> frames) {
  size_t n = 0;
  while (n < frames.size() && isConstructionMethod(jni, frames[n].method)) ++n;
  return n;
}

bool ExceptionTrace::blind() const { return created_ && !fillInStackTraceHooked(); }

std::string exceptionFrameName(const std::string& class_name, bool uncaught) {
  return uncaught ? class_name + " (uncaught)" : class_name;
}

}  // namespace stackscope::agent

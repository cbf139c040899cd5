#include "agent/agent_thread.h"

#include <chrono>

#include "agent/clocks.h"

namespace stackscope::agent {

bool AgentThread::start(jvmtiEnv* jvmti, JNIEnv* jni, const char* name, Body body, void* arg) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (!thread_class) {
    jni->ExceptionClear();
    return false;
  }
  jmethodID init = jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V");
  jstring jname = jni->NewStringUTF(name);
  jobject thread = (init && jname) ? jni->NewObject(thread_class, init, jname) : nullptr;
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (!thread) return false;
  body_ = body;
  arg_ = arg;
  thread_ref_.store(jni->NewGlobalRef(thread), std::memory_order_release);  // before it runs
  running_ = true;
  if (jvmti->RunAgentThread(thread, entry, this, JVMTI_THREAD_NORM_PRIORITY) != JVMTI_ERROR_NONE) {
    running_ = false;
    return false;
  }
  jni->DeleteLocalRef(jname);
  jni->DeleteLocalRef(thread);
  jni->DeleteLocalRef(thread_class);
  return true;
}

void JNICALL AgentThread::entry(jvmtiEnv*, JNIEnv* jni, void* self_ptr) {
  auto& self = *static_cast<AgentThread*>(self_ptr);
  self.body_(self.arg_, jni, self);
  std::lock_guard<std::mutex> lock(self.mutex_);
  self.running_ = false;
  self.cv_.notify_all();
}

bool AgentThread::sleepUntil(int64_t deadline_ns) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (stop_requested_) return false;
    const int64_t left = deadline_ns - monotonicNs();
    if (left <= 0) return true;
    cv_.wait_for(lock, std::chrono::nanoseconds(left));
  }
}

bool AgentThread::stop(int64_t timeout_ns) {
  std::unique_lock<std::mutex> lock(mutex_);
  stop_requested_ = true;
  cv_.notify_all();
  return cv_.wait_for(lock, std::chrono::nanoseconds(timeout_ns), [this] { return !running_; });
}

bool AgentThread::is(JNIEnv* jni, jthread thread) const {
  jobject ours = thread_ref_.load(std::memory_order_acquire);
  return ours && jni->IsSameObject(thread, ours);
}

}  // namespace stackscope::agent

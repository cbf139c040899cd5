#include "agent/agent_thread.h"

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "agent/clocks.h"

namespace stackscope::agent {

bool AgentThread::start(jvmtiEnv* jvmti, JNIEnv* jni, const char* name, Body body, void* arg) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jmethodID init = thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
  jstring jname = init ? jni->NewStringUTF(name) : nullptr;
  jobject thread = jname ? jni->NewObject(thread_class, init, jname) : nullptr;
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  bool started = false;
  if (thread) {
    jvmti_ = jvmti;
    body_ = body;
    arg_ = arg;
    running_ = true;
    // Before the thread runs: its own ThreadStart event asks is().
    thread_ref_.store(jni->NewGlobalRef(thread), std::memory_order_release);
    started = jvmti->RunAgentThread(thread, entry, this, JVMTI_THREAD_NORM_PRIORITY) == JVMTI_ERROR_NONE;
    if (!started) running_ = false;
  }
  for (jobject local : {static_cast<jobject>(thread), static_cast<jobject>(jname), static_cast<jobject>(thread_class)}) {
    if (local) jni->DeleteLocalRef(local);
  }
  return started;
}

void JNICALL AgentThread::entry(jvmtiEnv*, JNIEnv* jni, void* self_ptr) {
  auto& self = *static_cast<AgentThread*>(self_ptr);
  self.tid_.store(gettid());
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
    if (left <= 0 || wake_requested_) {
      wake_requested_ = false;
      return true;
    }
    cv_.wait_for(lock, std::chrono::nanoseconds(left));
  }
}

void AgentThread::wake() {
  std::lock_guard<std::mutex> lock(mutex_);
  wake_requested_ = true;
  cv_.notify_all();
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

bool AgentThread::running() {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_;
}

void AgentThread::release(JNIEnv* jni, int64_t timeout_ns) {
  jobject ours = thread_ref_.exchange(nullptr);
  if (!ours) return;
  // The body has returned, but the thread still unwinds out of the JVM: wait until the JVM
  // says it terminated, so that a detach that returns has no agent thread left.
  const int64_t deadline = monotonicNs() + timeout_ns;
  jint state = 0;
  while (jvmti_ && jvmti_->GetThreadState(static_cast<jthread>(ours), &state) == JVMTI_ERROR_NONE &&
         !(state & JVMTI_THREAD_STATE_TERMINATED) && monotonicNs() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  jni->DeleteGlobalRef(ours);
  // Terminated, the thread is still in the JVM's thread list until its OS thread exits.
  const std::string task = "/proc/self/task/" + std::to_string(tid_.load());
  while (tid_.load() != 0 && ::access(task.c_str(), F_OK) == 0 && monotonicNs() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace stackscope::agent

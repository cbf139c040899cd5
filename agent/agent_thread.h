// A JVMTI agent thread (a java.lang.Thread running native code, so it has a JNIEnv and can
// call JVMTI) that can be asked to stop and waited for with a time limit: shutdown must
// never hang on it.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace stackscope::agent {

class AgentThread {
 public:
  using Body = void (*)(void* arg, JNIEnv* jni, AgentThread& self);

  // Creates the java.lang.Thread named `name` and runs body(arg, ...) on it. Live phase only.
  bool start(jvmtiEnv* jvmti, JNIEnv* jni, const char* name, Body body, void* arg);

  // Sleeps until the monotonic time `deadline_ns`, until wake() or until stop is requested;
  // returns false when stop was requested.
  bool sleepUntil(int64_t deadline_ns);

  // Ends the body's current sleepUntil early, or its next one if it is not sleeping.
  void wake();

  // Asks the body to return and waits up to `timeout_ns` for it; true if it did.
  bool stop(int64_t timeout_ns);

  // Whether `thread` is this agent thread (ThreadStart uses it to leave agent threads out).
  bool is(JNIEnv* jni, jthread thread) const;

  // Whether the body still runs (not started, or returned: false).
  bool running();

  // A session's end, once stopped and no callback can call is() any more: waits (at most
  // timeout_ns) until the JVM has the thread terminated and its OS thread exited (then it is
  // out of the JVM's thread list), and drops the reference to it.
  void release(JNIEnv* jni, int64_t timeout_ns);

 private:
  static void JNICALL entry(jvmtiEnv* jvmti, JNIEnv* jni, void* self);

  jvmtiEnv* jvmti_ = nullptr;
  std::atomic<pid_t> tid_{0};  // the OS thread, set as it starts
  Body body_ = nullptr;
  void* arg_ = nullptr;
  // Global reference, set before the thread starts; read by other threads' ThreadStart.
  std::atomic<jobject> thread_ref_{nullptr};
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool wake_requested_ = false;
  bool running_ = false;
};

}  // namespace stackscope::agent

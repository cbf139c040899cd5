// The exception trace (event=...,exception): exceptions in recorded threads, with their class
// and stack, from one of two sources (exception= option):
//
// created (the default): every exception whose stack trace is filled in, at its creation
//   (throwable_hook.h wraps Throwable.fillInStackTrace(int)). The stack is the creating
//   thread's without the exception's own constructor frames, so its innermost frame is the
//   method that said `new`, which for `throw new E()` is the throw site. Cheap: compiled code
//   is unchanged. Not seen: exceptions created with writableStackTrace false or whose class
//   overrides fillInStackTrace() without calling Throwable's, HotSpot's preallocated implicit
//   exceptions (OmitStackTraceInFastThrow: compiled code's hot NullPointerException,
//   ArithmeticException… once C2 recompiled it), errors HotSpot builds without their Java
//   constructor (StackOverflowError, its preallocated OutOfMemoryErrors), and second throws of
//   one object (a rethrow, a cached exception); an exception created and never thrown is
//   counted.
// thrown (exception=thrown): every throw, through JVMTI's Exception event, with whether a Java
//   frame of the thread catches it: exact throw counts. The event needs the
//   can_generate_exception_events capability, and that capability alone makes HotSpot send
//   every throw through the runtime and deoptimize the throwing compiled frame: a program
//   that throws much runs many times slower (docs/benchmarks.md), so the agent asks for it
//   only in this mode.
// Both callbacks run on the creating or throwing thread, a Java thread, where JVMTI calls are
// fine (GetStackTrace, the class's signature): they take the stack themselves and queue it;
// the writer thread names the methods, as it does for samples. A throw's stack is walked by
// GetStackTrace once per chain of physical frames and taken from the memo after that
// (own_stacks.h); a creation's by AsyncGetCallTrace from the native fillInStackTrace.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/bounded_queue.h"
#include "agent/object_class.h"
#include "agent/own_stacks.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

struct ThrownException {
  int64_t time_ns = 0;  // since the recording's time 0
  uint32_t thread = 0;  // registry id, 0 = a thread the agent does not know
  uint32_t annotation = 0;
  bool uncaught = false;  // thrown mode: no Java frame of the thread has a handler for it
  bool created = false;   // created mode: `frames` still begin with the constructor's frames
  // "java.lang.IllegalStateException": interned by the trace (object_class.h).
  const std::string* class_name = nullptr;
  FrameRange frames;  // in the batch's frame store (takeAll): the throw (or creation) site first
};

class ExceptionTrace {
 public:
  // More than this many exceptions waiting for the writer are counted, not queued: the
  // queue's memory stays bounded whatever the program throws.
  static constexpr size_t kMaxQueued = 1 << 16;
  // Whether a thread without a slot is one of the agent's own (whose exceptions are not the
  // program's).
  using AgentThreadTest = bool (*)(JNIEnv* jni, jthread thread);

  // `created`: the source is exception creation (else throws).
  // `wake`: the writer's (BoundedQueue).
  ExceptionTrace(jvmtiEnv* jvmti, int64_t start_ns, bool created, AgentThreadTest is_agent_thread, WriterWake* wake);

  // The JVMTI Exception event (thrown mode). `catch_method` is null when no Java frame
  // catches it.
  void onException(JNIEnv* jni, jobject exception, jmethodID catch_method);
  // Throwable.fillInStackTrace(int) on `throwable` (created mode), before the JDK's own.
  void onCreated(JNIEnv* jni, jobject throwable);

  // Writer thread: moves every queued exception into `out` and their frames into `frames`
  // (both cleared first).
  void takeAll(std::vector<ThrownException>& out, std::vector<RawFrame>& frames) { queue_.takeAll(out, frames); }
  uint64_t dropped() const { return queue_.dropped(); }
  // Whether the trace could see nothing: created mode, and Throwable.fillInStackTrace(int)
  // was never bound through the agent (it is bound when first called).
  bool blind() const;

  // Writer thread: how many of a created exception's innermost frames are its construction
  // (Throwable.fillInStackTrace, and the constructors of Throwable classes, `<init>`) rather
  // than the code that created it. An exception created in another exception's constructor
  // is so placed where the outer one was created.
  size_t constructionFrames(JNIEnv* jni, std::span<const RawFrame> frames);
  const OwnStacks& ownStacks() const { return own_stacks_; }

 private:
  // The event's common part on the calling thread; false for threads the trace leaves out.
  bool start(JNIEnv* jni, ThrownException& event);
  bool isConstructionMethod(JNIEnv* jni, const void* method);

  jvmtiEnv* const jvmti_;
  const int64_t start_ns_;
  const bool created_;
  const AgentThreadTest is_agent_thread_;
  BoundedQueue<ThrownException> queue_;
  ObjectClassNames class_names_;
  OwnStacks own_stacks_;  // the throw sites' stacks
  // Writer thread only: the answer of isConstructionMethod by jmethodID, and Throwable.
  std::unordered_map<const void*, bool> construction_methods_;
  jclass throwable_ = nullptr;  // a global reference
};

// The name of the pseudo-method on top of an exception's stack (docs/format.md, Exception).
std::string exceptionFrameName(const std::string& class_name, bool uncaught);

}  // namespace stackscope::agent

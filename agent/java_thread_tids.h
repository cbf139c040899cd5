// The OS thread id of a Java thread the agent did not see start (an attach, a JVM thread
// started before the agent): JVMTI has no call for it, and OS names do not tell it either
// when many threads share their first 15 bytes (a pool's `qtp1225358173-31`, `-32`, …).
// HotSpot keeps it one step away: the java.lang.Thread's `eetop` field holds the JavaThread*,
// whose OSThread (VM structures `JavaThread::_osthread` or `Thread::_osthread`,
// `OSThread::_thread_id`) holds the tid.
//
// Its stack is there too (`Thread::_stack_base`, the top, and `_stack_size`): a thread adopted
// while it runs needs it to step out of stubs from its first sample (stack_capture.cpp).
//
// A thread may exit between the look at `eetop` and the reads behind it, so the VM's memory
// is read with process_vm_readv, which fails instead of faulting on an address no longer
// mapped, and the caller checks the tid against the process's tasks.
#pragma once

#include <jni.h>
#include <jvmti.h>
#include <sys/types.h>

#include <cstdint>

#include "agent/vm_structs.h"
#include "native/frame_pointer_walk.h"

namespace stackscope::agent {

using native::StackBounds;

class JavaThreadTids {
 public:
  // False when this VM does not list the fields (then tidOf always says 0).
  bool bind(const VmStructs& vm, JNIEnv* jni);
  // The thread's tid, or 0 when it cannot be read (not started, exited, not bound).
  pid_t tidOf(JNIEnv* jni, jthread thread) const;
  // The thread's stack as the VM holds it, zeros when it cannot be read. Unchecked: the
  // caller keeps it only where it lies in one mapping of the process.
  StackBounds stackOf(JNIEnv* jni, jthread thread) const;
  // The thread's JavaThread* (its `eetop`), 0 when not started, exited, or not bound.
  uintptr_t javaThreadOf(JNIEnv* jni, jthread thread) const;

 private:

  jfieldID eetop_ = nullptr;
  int64_t os_thread_offset_ = -1;  // in JavaThread
  int64_t thread_id_offset_ = -1;  // in OSThread
  uint64_t thread_id_size_ = 0;
  int64_t stack_base_offset_ = -1;  // in JavaThread
  int64_t stack_size_offset_ = -1;
};

}  // namespace stackscope::agent

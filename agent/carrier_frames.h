// Where a virtual thread's own stack ends. A walk of a carrier running a virtual thread goes
// on below it, through jdk.internal.vm.Continuation (enter0, enter, enterSpecial, run), into
// the carrier's scheduler frames (ForkJoinPool...). Those belong to the carrier, not to the
// virtual thread: its sample keeps the frames above the first Continuation frame.
// Writer thread only.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <unordered_map>

namespace stackscope::agent {

class CarrierFrames {
 public:
  explicit CarrierFrames(jvmtiEnv* jvmti) : jvmti_(jvmti) {}

  // Whether the method is one of jdk.internal.vm.Continuation's (cached per method).
  bool isContinuation(JNIEnv* jni, const void* method);

 private:
  jvmtiEnv* jvmti_;
  std::unordered_map<const void*, bool> known_;
};

}  // namespace stackscope::agent

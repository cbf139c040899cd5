// Where a virtual thread's own stack ends. A walk of a carrier running a virtual thread goes
// on below it, through jdk.internal.vm.Continuation (enter0, enter, enterSpecial, run), into
// the carrier's scheduler frames (ForkJoinPool...). Those belong to the carrier, not to the
// virtual thread: its sample keeps the frames above the first Continuation frame.
//
// A virtual thread mounted again after a park runs with only its top frames copied back onto
// the carrier's stack (HotSpot thaws lazily); the frames below stay frozen in the heap until
// they are returned to. AsyncGetCallTrace steps over them, from the last thawed frame straight
// to Continuation.enterSpecial (HotSpot 25), where a whole walk meets Continuation.enter0
// first. Such a sample lacks its outer frames, and says so (writer_thread.cpp).
// Writer thread only.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <unordered_map>

namespace stackscope::agent {

class CarrierFrames {
 public:
  enum class Kind : uint8_t {
    Other,         // not a Continuation method
    Entry,         // Continuation.enter0 or enter: right below the virtual thread's outermost frame
    CarrierSide,   // any other Continuation method (enterSpecial, run...): reached over frozen frames
  };

  explicit CarrierFrames(jvmtiEnv* jvmti) : jvmti_(jvmti) {}

  // What the method is to a virtual thread's walk (cached per method).
  Kind kindOf(JNIEnv* jni, const void* method);

 private:
  jvmtiEnv* jvmti_;
  std::unordered_map<const void*, Kind> known_;
};

}  // namespace stackscope::agent

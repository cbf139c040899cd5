// The Java name of an object's class, as the traces record it ("java.lang.IllegalStateException",
// "java.util.concurrent.locks.ReentrantLock$NonfairSync", "int[]"), interned: a trace that
// names a class per event (exceptions, lock waits) allocates nothing for it, and the writer can
// key on the pointer.
//
// Each thread remembers its last few classes (weak references): a program that creates
// exceptions or waits for locks of a few classes over and over pays a few JNI calls per event,
// not GetClassSignature, a conversion and a string. The weak references of a thread that ends
// are not deleted: a few small JNI handles per thread that ever named a class, and they do not
// keep a class from unloading.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_set>

namespace stackscope::agent {

class ObjectClassNames {
 public:
  explicit ObjectClassNames(jvmtiEnv* jvmti);

  // The class name of `object` ("<unknown>" when it cannot be named), valid as long as this
  // lives. Live phase, on a thread attached to the VM.
  const std::string* nameOf(JNIEnv* jni, jobject object);

 private:
  jvmtiEnv* const jvmti_;
  // Tells this set's names in the threads' memory from those of other sets, an earlier
  // session's included (a later set may sit at the same address).
  const uint64_t generation_;
  std::mutex mutex_;  // only around the set's operations
  std::unordered_set<std::string> names_;  // nodes never move
};

}  // namespace stackscope::agent

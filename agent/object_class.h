// The Java name of an object's class, as the traces record it ("java.lang.IllegalStateException",
// "java.util.concurrent.locks.ReentrantLock$NonfairSync", "int[]").
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>

namespace stackscope::agent {

// "<unknown>" when the class cannot be named. Live phase, on a thread attached to the VM.
std::string classNameOf(jvmtiEnv* jvmti, JNIEnv* jni, jobject object);

}  // namespace stackscope::agent

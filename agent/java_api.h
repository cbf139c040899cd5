// The agent's side of the Java API (java/src/io/stackscope/Stackscope.java): binds the
// natives mark0/begin0/end0/annotate0 of every io.stackscope.Stackscope class the JVM loads
// and sets its `bound` field, so the application's calls, no-ops until then, start reaching
// the recording. The application never loads a library itself.
//
// Markers and annotation changes go to the writer through the meta-event queue; a thread's
// annotation id and filter status live in its ThreadSlot, where the sampler reads them.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>

#include "agent/annotation_table.h"
#include "agent/meta_events.h"
#include "agent/native_threads.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

struct JavaApiContext {
  MetaQueue* meta = nullptr;
  AnnotationTable* annotations = nullptr;
  ThreadRegistry* registry = nullptr;
  int64_t start_ns = 0;   // monotonic time 0
  bool cpu_timers = false;  // cpu mode: a thread's match status arms or disarms its timer
  // Threads running before an attach, found by tid (native_threads.h): they have no
  // thread-local slot. Null when the session finds no thread that way.
  const NativeThreads* by_tid = nullptr;
};

// Per session, before any event callback can bind a class; the context is the session's,
// used only under a SessionUse (session_gate.h) while active.
void initJavaApi(const JavaApiContext& context);
// While inactive (before VMInit finished, after VMDeath) the natives do nothing and no
// class is bound.
void setJavaApiActive(bool active);
// Once active at a recording's beginning, after its threads were registered or adopted:
// gives each the annotation it gave itself before (remembered_annotations.h), which the Java
// API does not send again while it stays the same.
void applyRememberedAnnotations();

// Queues a marker named `name` at this moment, written by thread id `thread` (0: none, as for
// the control server's marks); false while inactive or for an empty name. The Java API's
// mark/begin/end and the control command mark both come here.
bool queueMarker(std::string name, format::MarkerKind kind, uint32_t thread);

// ClassPrepare: binds `klass` if it is io.stackscope.Stackscope and the API is active.
void bindIfJavaApi(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass);
// VMInit, once active: binds a Stackscope class that was prepared before the agent recorded.
void bindLoadedJavaApi(jvmtiEnv* jvmti, JNIEnv* jni);

}  // namespace stackscope::agent

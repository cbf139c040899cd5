// The SIGPROF handler that captures Java stacks with AsyncGetCallTrace into the sample ring.
#pragma once

#include <jni.h>

#include <cstdint>

#include "agent/code_regions.h"
#include "agent/compiled_code.h"
#include "agent/entry_frames.h"
#include "agent/lost_counters.h"
#include "agent/native_threads.h"
#include "agent/sample_slot.h"
#include "agent/vm_thread_anchor.h"

namespace stackscope::agent {

struct CaptureConfig {
  void* async_get_call_trace = nullptr;  // from dlsym
  SampleRing* ring = nullptr;            // never freed: a late signal may still use it
  LostCounters* lost = nullptr;          // never freed, likewise
  int64_t start_ns = 0;                  // monotonic time 0 of the recording
  bool wall = false;                     // signals come from the wall sampler, not CPU timers
  const CodeRegions* code_regions = nullptr;  // names the stubs a sample stops in; never freed
  // Mixed mode: the JVM's own threads (null: not sampled) and native frames on top of the Java
  // ones. Native frames need the code cache's layout (setCompiledCode), where they end.
  const NativeThreads* native_threads = nullptr;
  bool native_frames = false;
  JavaVM* vm = nullptr;  // the JNIEnv of a native thread that is a JavaThread after all
};

// The code cache's compiled methods (compiled_code.h), bound at VMInit: a walk that fails in a
// method's prologue or epilogue goes on from its caller. Never freed once set.
void setCompiledCode(const CompiledCode* code);
// The frame anchors of threads in the VM (vm_thread_anchor.h), bound at VMInit: a walk that
// fails for a thread in the VM starts again from its last Java frame. Never freed.
void setVmThreadAnchor(const VmThreadAnchor* anchor);

// The VM's entry frames (entry_frames.h), bound at VMInit: mixed mode puts the native frames
// between two Java frames at their place. Never freed once set.
void setEntryFrames(const EntryFrames* entry);

// Looks up AsyncGetCallTrace in the JVM; null if this JVM does not have it.
void* findAsyncGetCallTrace();

// The calling thread's Java frames (innermost first, at most `depth`) by AsyncGetCallTrace,
// for a thread in native code with a walkable last Java frame (a wrapped JNI native): much
// cheaper than JVMTI's GetStackTrace. The count, or <= 0 when the walk failed (a thread in a
// runtime call from compiled code has no walkable anchor). After installCaptureHandler.
int walkThreadInNative(JNIEnv* jni, RawFrame* frames, int depth);

// Installs the handler (never uninstalled: once the agent detaches it stays, inert) with the
// session's config; again for each session, while capture is stopped. It does nothing until
// setCaptureActive(true).
bool installCaptureHandler(const CaptureConfig& config);
// Whether installCaptureHandler replaced a handler someone else had installed for SIGPROF
// (another profiler, a native library): that one gets no more signals.
bool replacedForeignSigprofHandler();
// Whether SIGPROF still reaches the capture handler (false once someone replaced it).
bool captureHandlerStillInstalled();
void setCaptureActive(bool active);
// Deactivates capture and waits, at most timeout_ns, until no handler is still running; true
// if none was: the config's ring, counters and tables may then be freed.
bool stopCapture(int64_t timeout_ns);
bool captureActive();

}  // namespace stackscope::agent

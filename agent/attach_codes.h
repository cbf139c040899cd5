// What Agent_OnAttach returns, which HotSpot hands to the attaching tool in the load
// command's reply ("return code: N"): the reason of a refusal, so `stackscope attach` can say
// it (the agent's own line goes to the JVM's stderr, which the tool does not see). Shared by
// the agent and the front-end; header only.
#pragma once

namespace stackscope::agent {

enum AttachCode : int {
  kAttachDone = 0,
  kAttachFailed = 1,          // see the JVM's stderr (options, file, capabilities...)
  kAttachAlreadyRecording = 2,
  kAttachNotRecording = 3,    // stop: no recording runs
};

// The one-line explanation of a code, for the front-end.
inline const char* attachCodeMeaning(int code) {
  switch (code) {
    case kAttachDone: return "done";
    case kAttachAlreadyRecording: return "a recording is already running in this JVM";
    case kAttachNotRecording: return "no recording is running in this JVM";
    default: return "the agent refused; the JVM's stderr says why";
  }
}

}  // namespace stackscope::agent

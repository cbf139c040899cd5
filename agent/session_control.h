// What the agent's control (the control server, and Agent_OnAttach's commands) may ask of its
// life cycle: start a recording, stop it, detach the agent, and the figures of status. One
// session records at a time; a process may hold many in turn. Every call is serialized with
// the others and with VM death, and may come from any thread attached to the JVM (its
// JNIEnv passed in), never from inside a JVMTI callback.
//
// Start and the options: the agent's own option string (options.h), parsed as at load;
// capabilities the JVM grants only at startup (the exception trace's, the lock trace's park
// hook) are missing after an attach: the trace that needs one is left out with one line on
// stderr and in the recording, and the rest runs.
//
// Detach: stops the session if one runs (its file finished), stops the agent's threads and
// its control server (waited out of the JVM's thread list), disables every event,
// relinquishes the capabilities and frees what the agent allocated; the SIGPROF handler stays
// installed but inert. A later start (a new attach) works again. Never on the control
// server's own thread (agent_control.cpp runs a control detach on a thread of its own).
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "agent/attach_codes.h"

namespace stackscope::agent {

struct ControlResult {
  bool ok = false;
  std::string error;  // one line for the user when !ok ("stackscope: ...")
  int code = 0;       // AttachCode (attach_codes.h): why, for a front-end that sees no stderr
};

// Starts a recording now with `options` (the agent's option syntax). Fails if one is already
// recording, or on bad options or an unwritable file.
ControlResult startSession(JNIEnv* jni, std::string_view options);
// Stops the recording: every trace and event off, the file finished and complete.
ControlResult stopSession(JNIEnv* jni);
// Stops any recording and unloads the agent's work from the JVM (see the top).
ControlResult detachAgent(JNIEnv* jni);
// Closes the control server only (its thread, connections and control files): a recording
// goes on, and a later control= opens a new server (control_glue.h, closeControl). Needs no
// JNI: from any thread but the server's, attached to the JVM or not.
void closeControlServer();

// The control server's thread is the agent's, never sampled nor traced: `is_control_thread`
// tells it (null: none). Set before the server thread starts.
void setControlThreadCheck(bool (*is_control_thread)(JNIEnv* jni, jthread thread));

}  // namespace stackscope::agent

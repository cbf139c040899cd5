// The control server (control_server.h, agent_control.h) within the session life cycle
// (session.h). The server is the process's, not a session's: opened with control= at load
// (-agentpath) or at any attach, started once the VM is live, and it outlives the sessions
// it starts and stops. Its handler reaches the current session only under the session
// control mutex (withCurrentSession), so a session may come and go under it. Only a detach
// ends it: the server first, then the session, then its thread is waited out and freed.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>
#include <string_view>

#include "agent/options.h"

namespace stackscope::agent {

// Whether an option string only opens the control server ("control=127.0.0.1:0"): the agent
// then waits for a start over it instead of recording at once.
bool controlOnly(std::string_view text);
// With control=: listens and writes the control files (nothing if already listening). False
// with `error`.
bool openControl(const Options& options, std::string& error);
// Once the VM is live: the server thread and its handler. Nothing if not open or already running.
void startControl(JavaVM* vm, jvmtiEnv* jvmti, JNIEnv* jni, const std::string& jvm);
// Whether a server listens (its thread running or about to).
bool controlListening();
// Ends the server (its thread, connections, control files). Never from the server's thread,
// nor with the session control mutex held (its commands take it).
void stopControl(int64_t timeout_ns);
// The close command: stops the server as stopControl does and marks it closed, so that a
// later control= opens a new one. Its object is kept until releaseControl: JVMTI callbacks
// and the writer thread, which a running recording keeps going, may still ask whether a
// thread is its. Never from the server's thread, nor with the session control mutex held.
void closeControl(int64_t timeout_ns);
// After stopControl, once no JVMTI callback can ask whether a thread is the server's: waits
// until its thread is out of the JVM's thread list and frees the server; a later control=
// opens a new one.
void releaseControl(JNIEnv* jni, int64_t timeout_ns);

}  // namespace stackscope::agent

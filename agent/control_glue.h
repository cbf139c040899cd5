// The control server (control_server.h, agent_control.h) within the session life cycle
// (session.h). The server is the process's: opened at load with control=, started once the
// startup session begins, its handler bound to that session, which is therefore kept (not
// freed) while the server runs: a control stop finishes its file, and only a detach, which
// stops the server first, frees it.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <string>

#include "agent/options.h"

namespace stackscope::agent {

struct Session;

// Agent_OnLoad with control=: listens and writes the control files. False with `error`.
bool openControl(const Options& options, std::string& error);
// Once `session` (the startup one) began: the server thread and its handler. Nothing if not open.
void startControl(Session& session, jvmtiEnv* jvmti, JNIEnv* jni, const std::string& jvm);
// Whether the server's handler refers to `session`, which must then outlive it.
bool controlHolds(const Session* session);
// Ends the server (its thread, connections, control files) and drops its handler. Never
// from the server's thread, nor with the session control mutex held (its commands take it).
void stopControl(int64_t timeout_ns);

}  // namespace stackscope::agent

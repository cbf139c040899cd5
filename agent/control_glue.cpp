#include "agent/control_glue.h"

#include <unistd.h>

#include <cstdio>

#include "agent/agent_control.h"
#include "agent/control_server.h"
#include "agent/session.h"

namespace stackscope::agent {

namespace {

// Never freed: the server's thread may still be winding down when the process exits.
ControlServer* g_server = nullptr;
AgentControl* g_handler = nullptr;
const Session* g_held = nullptr;  // the session the handler refers to

bool isServerThread(JNIEnv* jni, jthread thread) { return g_server && g_server->isServerThread(jni, thread); }

}  // namespace

bool openControl(const Options& options, std::string& error) {
  if (!options.has_control) return true;
  if (!g_server) g_server = new ControlServer;
  if (!g_server->open(options.control, getpid(), error)) return false;
  std::fprintf(stderr, "stackscope: control server on %s\n", g_server->address().c_str());
  return true;
}

void startControl(Session& session, jvmtiEnv* jvmti, JNIEnv* jni, const std::string& jvm) {
  if (!g_server || !g_server->listening()) return;
  AgentControlContext context;
  context.options = &session.options;
  context.options_text = session.options_text;
  context.file = session.file_path;
  context.jvm = jvm;
  context.start_ns = session.start_ns;
  context.writer_thread = &session.writer_thread;
  context.lost = &session.lost;
  context.recording = controlledRecording;
  context.stop_recording = finishForControl;
  g_handler = new AgentControl(std::move(context));
  g_held = &session;
  setControlThreadCheck(isServerThread);  // before the thread starts: it is never sampled
  if (!g_server->start(jvmti, jni, g_handler)) {
    std::fprintf(stderr, "stackscope: cannot start the control server thread\n");
    g_server->stop(0);
  }
}

bool controlHolds(const Session* session) { return g_held && g_held == session; }

void stopControl(int64_t timeout_ns) {
  if (!g_server) return;
  g_server->stop(timeout_ns);
  // The handler goes with the thread; kept if the thread did not stop (it may still use it).
  if (!g_server->agentThread().running()) {
    delete g_handler;
    g_handler = nullptr;
    g_held = nullptr;
  }
}

}  // namespace stackscope::agent

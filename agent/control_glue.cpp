#include "agent/control_glue.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <vector>

#include "agent/agent_control.h"
#include "agent/control_server.h"
#include "agent/session_control.h"

namespace stackscope::agent {

namespace {

// Freed only by releaseControl, once its thread is gone: until then a late use is possible.
ControlServer* g_server = nullptr;
AgentControl* g_handler = nullptr;
// closeControl: g_server is closed; the next control= opens a new server and keeps the
// closed ones here, for releaseControl to free. Under the session control mutex, as openControl.
std::atomic<bool> g_server_closed{false};
std::vector<ControlServer*> g_closed_servers;

bool isServerThread(JNIEnv* jni, jthread thread) { return g_server && g_server->isServerThread(jni, thread); }

}  // namespace

bool controlOnly(std::string_view text) {
  bool control = false;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item.starts_with("control=")) {
      control = true;
    } else if (item != "strict" && !item.empty()) {
      return false;
    }
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return control;
}

bool openControl(const Options& options, std::string& error) {
  if (!options.has_control) return true;
  if (g_server && g_server->listening()) {
    std::fprintf(stderr, "stackscope: the control server already listens on %s; keeping it\n",
                 g_server->address().c_str());
    return true;
  }
  if (g_server && g_server_closed.exchange(false)) {
    g_closed_servers.push_back(g_server);  // a callback may still read it: freed at the detach
    g_server = nullptr;
  }
  if (!g_server) g_server = new ControlServer;
  if (!g_server->open(options.control, getpid(), error)) return false;
  std::fprintf(stderr, "stackscope: control server on %s\n", g_server->address().c_str());
  return true;
}

void startControl(JavaVM* vm, jvmtiEnv* jvmti, JNIEnv* jni, const std::string& jvm) {
  if (!g_server || !g_server->listening() || g_server->agentThread().running()) return;
  if (!g_handler) g_handler = new AgentControl(vm, jvm);
  setControlThreadCheck(isServerThread);  // before the thread starts: it is never sampled
  if (!g_server->start(jvmti, jni, g_handler)) {
    std::fprintf(stderr, "stackscope: cannot start the control server thread\n");
    g_server->stop(0);
  }
}

bool controlListening() { return g_server && g_server->listening(); }

void stopControl(int64_t timeout_ns) {
  if (g_server) g_server->stop(timeout_ns);
}

void closeControl(int64_t timeout_ns) {
  if (!g_server) return;
  g_server->stop(timeout_ns);
  // A thread that did not stop keeps the server as it is: not closed, never replaced.
  if (!g_server->agentThread().running()) g_server_closed.store(true);
}

void releaseControl(JNIEnv* jni, int64_t timeout_ns) {
  if (!g_server || g_server->agentThread().running()) return;  // a thread that did not stop keeps it all
  for (ControlServer* closed : g_closed_servers) {
    closed->agentThread().release(jni, timeout_ns);
    delete closed;
  }
  g_closed_servers.clear();
  g_server_closed.store(false);
  g_server->agentThread().release(jni, timeout_ns);
  setControlThreadCheck(nullptr);
  delete g_server;
  g_server = nullptr;
  delete g_handler;
  g_handler = nullptr;
}

}  // namespace stackscope::agent

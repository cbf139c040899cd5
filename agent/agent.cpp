// Entry points of libstackscope.so. The recording itself is a session (session.h), which may
// start at JVM start or later and stop more than once in one JVM.
//
// Agent_OnLoad (-agentpath, stackscope record): refuses a second load into one process,
// parses options, sets up what child JVMs inherit (process_env.h) and creates the session
// that VMInit begins (and, with control=, the control server: control_glue.h); VMDeath
// finishes it. Normal exit, System.exit and an uncaught exception in main all pass through
// VMDeath.
//
// Agent_OnAttach (stackscope attach, or any tool that sends HotSpot's `load` command): the
// agent in a running JVM. HotSpot calls it again for each load of the same library. Options
// with control= open the control server (control_glue.h), the channel `stackscope attach`
// drives the agent through; control= alone starts nothing. Any other options start a session
// with them; "stop" (finish the recording) and "detach" (stop and unload the agent's work,
// session_control.h) remain for tools that only speak the load command. The return code reaches the front-end in the load
// command's reply (attach_codes.h), the reason's line on the JVM's stderr.
//
// The library is linked with -z nodelete: HotSpot dlclose's an agent whose Agent_OnAttach
// failed, and a signal handler or JVMTI callback of an earlier load must never point into
// unmapped code.
#include <jni.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "agent/options.h"
#include "agent/process_env.h"
#include "agent/session.h"
#include "agent/session_control.h"

namespace {

jint refuse(bool strict, const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return strict ? JNI_ERR : JNI_OK;
}

jint report(const stackscope::agent::ControlResult& result) {
  if (result.ok) return JNI_OK;
  std::fprintf(stderr, "%s\n", result.error.c_str());
  return result.code;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  using namespace stackscope::agent;
  const std::string text = options ? options : "";
  // Before anything else, and never fatal: a second agent would share this process's signal
  // handler and could truncate the first one's file.
  if (!claimProcess()) {
    std::fprintf(stderr, "stackscope: the agent is already loaded in this JVM; keeping the first, ignoring '%s'\n",
                 text.c_str());
    return JNI_OK;
  }
  const ParseResult parsed = parseOptions(text, getpid());
  if (!parsed.ok) return refuse(parsed.strict, parsed.error);
  const std::string children_problem = applyChildren(parsed.options.children, text);
  if (!children_problem.empty()) std::fprintf(stderr, "%s\n", children_problem.c_str());
  const ControlResult loaded = loadAtStartup(vm, parsed.options, text);
  return loaded.ok ? JNI_OK : refuse(parsed.options.strict, loaded.error);
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  using namespace stackscope::agent;
  const std::string text = options ? options : "";
  JNIEnv* jni = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK || !jni) {
    return report({false, "stackscope: attached on a thread without JNI", kAttachFailed});
  }
  if (text == "stop") return report(stopSession(jni));
  if (text == "detach") return report(detachAgent(jni));
  return report(attachAndStart(vm, jni, text));
}

// Everything was finished at VM death; the agent's memory is deliberately kept (session.h).
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {}

}  // extern "C"

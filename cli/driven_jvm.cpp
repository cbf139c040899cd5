#include "cli/driven_jvm.h"

#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "agent/attach_codes.h"
#include "cli/agent_args.h"
#include "cli/command.h"
#include "native/jvm_attach.h"

namespace stackscope::cli {

namespace {

// After detach: the agent closes the connection once it is gone from the JVM.
bool waitForClose(protocol::Client& client, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    protocol::Frame frame;
    std::string error;
    const auto got = client.receive(frame, static_cast<int>(left.count()), error);
    if (got == protocol::Client::Received::Closed) return true;
    if (got != protocol::Client::Received::Frame) return false;
  }
}

}  // namespace

pid_t parsePid(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long pid = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || pid <= 0 || pid > 0x3fffffff)
    throw UserError("'" + text + "' is not a process id");
  return static_cast<pid_t>(pid);
}

void connectOrLoadAgent(pid_t pid, int timeout_ms, DrivenJvm& jvm) {
  jvm.pid = pid;
  std::string error;
  if (protocol::connectToAgent(std::to_string(pid), "", jvm.client, jvm.hello, error)) return;
  const std::filesystem::path agent = findAgent();
  if (::kill(pid, 0) == 0 && !native::visibleToProcess(pid, agent.string())) {
    throw UserError("the agent " + agent.string() + " is not in the file system of JVM " + std::to_string(pid) +
                    " (a container?): run stackscope inside it");
  }
  native::AttachResult loaded = native::loadAgent(pid, agent.string(), "control=127.0.0.1:0", timeout_ms);
  if (loaded.error == native::AttachError::Failed && loaded.agent_code != 0)
    loaded.message = "JVM " + std::to_string(pid) + ": " + agent::attachCodeMeaning(loaded.agent_code);
  if (loaded.error != native::AttachError::None) throw UserError(loaded.message);
  jvm.opened_server = true;
  if (!protocol::connectToAgent(std::to_string(pid), "", jvm.client, jvm.hello, error))
    throw UserError("JVM " + std::to_string(pid) + ": the agent's control server: " + error);
}

protocol::Json askJvm(DrivenJvm& jvm, protocol::Json command) {
  protocol::Json reply;
  std::string error;
  if (!jvm.client.request(std::move(command), reply, error, 30'000))
    throw UserError("JVM " + std::to_string(jvm.pid) + ": " + error);
  return reply;
}

std::string runningRecordingFile(DrivenJvm& jvm) {
  protocol::Json status;
  std::string error;
  const bool known = jvm.client.request(protocol::Json{{"cmd", "status"}}, status, error) && status.is_object();
  return known ? status.value("file", std::string("its file")) : "its file";
}

bool detachAgent(DrivenJvm& jvm, int timeout_ms) {
  protocol::Json reply;
  std::string error;
  return jvm.client.request(protocol::Json{{"cmd", "detach"}}, reply, error) && waitForClose(jvm.client, timeout_ms);
}

bool closeServer(DrivenJvm& jvm, int timeout_ms) {
  protocol::Json reply;
  std::string error;
  return jvm.client.request(protocol::Json{{"cmd", "close"}}, reply, error) && waitForClose(jvm.client, timeout_ms);
}

}  // namespace stackscope::cli

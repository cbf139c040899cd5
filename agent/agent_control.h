// The control commands on the agent (control_handler.h): start and stop sessions at any time
// (session_control.h), and status, mark, dump, filter and stream on the current one, reached
// only under the session control mutex (withCurrentSession), so that no session is freed
// under a command. A detach runs on a thread of its own (see detach).
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>

#include "agent/control_handler.h"

namespace stackscope::agent {

class AgentControl final : public ControlHandler {
 public:
  AgentControl(JavaVM* vm, std::string jvm) : vm_(vm), jvm_(std::move(jvm)) {}
  ~AgentControl() override;

  void describe(protocol::Json& out) override;
  void status(JNIEnv* jni, protocol::Json& out) override;
  ControlOutcome start(JNIEnv* jni, const std::string& options) override;
  ControlOutcome stop(JNIEnv* jni) override;
  ControlOutcome mark(const std::string& name, format::MarkerKind kind) override;
  ControlOutcome dump(JNIEnv* jni, const std::string& path) override;
  ControlOutcome setFilter(JNIEnv* jni, const FilterChange& change) override;
  ControlOutcome histogram(JNIEnv* jni) override;
  bool detach(JNIEnv* jni, int requester_fd) override;
  bool closeServer(JNIEnv* jni, int requester_fd) override;
  uint64_t currentRecording() override;
  bool readRecording(uint64_t recording, uint64_t offset, size_t max, std::string& out) override;

 private:
  JavaVM* vm_;
  std::string jvm_;  // "OpenJDK 64-Bit Server VM 17.0.x"
  int file_fd_ = -1;  // the recording streamed last, opened for reading on its first stream
  uint64_t file_recording_ = 0;  // which one
};

}  // namespace stackscope::agent

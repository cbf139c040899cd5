// The control commands on the agent as it is today (control_handler.h): a recording starts
// with the JVM and runs until stop, detach or VM death; status, mark, dump and stream work on
// it. start and set filter need recordings started at any time (issue 10's session life
// cycle) and are refused as unavailable until it lands.
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>

#include "agent/control_handler.h"
#include "agent/lost_counters.h"
#include "agent/options.h"
#include "agent/writer_thread.h"

namespace stackscope::agent {

struct AgentControlContext {
  const Options* options = nullptr;
  std::string options_text;
  std::string file;  // the recording being written
  std::string jvm;   // "OpenJDK 64-Bit Server VM 17.0.x"
  int64_t start_ns = 0;  // monotonic time 0
  WriterThread* writer_thread = nullptr;
  const LostCounters* lost = nullptr;
  // Whether the recording runs; stops it as VM death does (false: it was not running).
  bool (*recording)() = nullptr;
  bool (*stop_recording)(JNIEnv* jni) = nullptr;
};

class AgentControl final : public ControlHandler {
 public:
  explicit AgentControl(AgentControlContext context) : context_(std::move(context)) {}
  ~AgentControl() override;

  void describe(protocol::Json& out) override;
  void status(JNIEnv* jni, protocol::Json& out) override;
  ControlOutcome start(JNIEnv* jni, const std::string& options) override;
  ControlOutcome stop(JNIEnv* jni) override;
  ControlOutcome mark(const std::string& name, format::MarkerKind kind) override;
  ControlOutcome dump(JNIEnv* jni, const std::string& path) override;
  ControlOutcome setFilter(JNIEnv* jni, const std::string& filter) override;
  void detach(JNIEnv* jni) override;
  bool readRecording(uint64_t offset, size_t max, std::string& out) override;

 private:
  AgentControlContext context_;
  int file_fd_ = -1;  // the recording, opened for reading on the first stream
};

}  // namespace stackscope::agent

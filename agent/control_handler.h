// What the control server (control_server.h) asks of the agent: one method per command of
// docs/protocol.md. The server owns the protocol (framing, authentication, clients); the
// handler owns the recording's life cycle. All methods run on the server's thread, one at a
// time, with its JNIEnv; none may block for long (a command that waits for the writer waits
// with a time limit).
#pragma once

#include <jni.h>

#include <cstdint>
#include <string>

#include "format/records.h"
#include "protocol/message.h"

namespace stackscope::agent {

struct ControlOutcome {
  bool ok = true;
  const char* code = nullptr;  // protocol::error::*, when !ok
  std::string message;         // what a user reads: why it failed, or what was done

  static ControlOutcome done(std::string message = {}) { return {true, nullptr, std::move(message)}; }
  static ControlOutcome refused(const char* code, std::string message) { return {false, code, std::move(message)}; }
};

class ControlHandler {
 public:
  virtual ~ControlHandler() = default;

  // hello: what the agent adds to its reply (pid, jvm, agent version).
  virtual void describe(protocol::Json& out) = 0;
  // status: the running traces with their settings, samples taken and lost, bytes written,
  // memory (the server adds its clients).
  virtual void status(JNIEnv* jni, protocol::Json& out) = 0;
  // start: a recording with these agent options (event=..., interval=..., file=..., filter=...).
  virtual ControlOutcome start(JNIEnv* jni, const std::string& options) = 0;
  virtual ControlOutcome stop(JNIEnv* jni) = 0;
  virtual ControlOutcome mark(const std::string& name, format::MarkerKind kind) = 0;
  // dump: path empty: flush what is pending to the recording; else also copy the recording
  // so far to `path`.
  virtual ControlOutcome dump(JNIEnv* jni, const std::string& path) = 0;
  // set filter: the collection-time annotation filter (annotation_filter.h syntax).
  virtual ControlOutcome setFilter(JNIEnv* jni, const std::string& filter) = 0;
  // detach: stop every trace and let the agent go. Called after the reply was sent; the server
  // closes every connection and its thread ends right after it returns.
  virtual void detach(JNIEnv* jni) = 0;

  // stream: up to `max` bytes of the current recording from `offset` into `out` (cleared
  // first), only bytes of complete chunks. Returns false when there is no more to come: the
  // recording is finished and `offset` is its end, or there is none.
  virtual bool readRecording(uint64_t offset, size_t max, std::string& out) = 0;
};

}  // namespace stackscope::agent

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
  protocol::Json fields = protocol::Json::object();  // more of the reply, when ok

  static ControlOutcome done(std::string message = {}) {
    return {true, nullptr, std::move(message), protocol::Json::object()};
  }
  static ControlOutcome refused(const char* code, std::string message) {
    return {false, code, std::move(message), protocol::Json::object()};
  }
};

// filter: what changes in the running session's collection-time filters. Each part given
// replaces that filter; an empty text clears it.
struct FilterChange {
  bool has_annotations = false;
  std::string annotations;  // the thread annotation filter, filter= syntax (annotation_filter.h)
  bool has_classes = false;
  std::string classes;  // the alloc trace's classes, classes= syntax ("com.shop.*;byte[]")
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
  // filter: changes the running session's filters.
  virtual ControlOutcome setFilter(JNIEnv* jni, const FilterChange& change) = 0;
  // histo: a class histogram of the heap now, into the running recording. Blocks for the
  // heap walk, which stops the JVM as long.
  virtual ControlOutcome histogram(JNIEnv* jni) = 0;
  // detach: stop every trace and let the agent go, server included. Called after the reply
  // was sent. True: handed to a thread of its own, which stops this server (stopControl) and
  // closes `requester_fd` (the detaching client's, a duplicate the handler then owns) once
  // the agent is gone, its threads out of the JVM's thread list; the server goes on serving
  // until stopped. False: that thread could not start, `requester_fd` is closed, and the
  // recording was only finished: the server closes every connection and its thread ends.
  virtual bool detach(JNIEnv* jni, int requester_fd) = 0;
  // close: as detach, but only the server goes: the recording, if one runs, goes on.
  virtual bool closeServer(JNIEnv* jni, int requester_fd) = 0;

  // stream: the recording file a new stream follows (0: none; with rotation, the file being
  // written), then up to `max` bytes of it from `offset` into `out` (cleared first), only
  // bytes of complete chunks. Returns false when there is no more to come: the recording is
  // finished and `offset` is its end, the file was rotated and `offset` is its end, or it is
  // no longer the current recording (a new start replaced it).
  virtual uint64_t currentRecording() = 0;
  virtual bool readRecording(uint64_t recording, uint64_t offset, size_t max, std::string& out) = 0;
};

}  // namespace stackscope::agent

// A running JVM driven over its agent's control server (docs/protocol.md), for the commands
// that work on a JVM by its pid (attach, top): the server that listens already (its control
// files, protocol/discovery.h), or one this command opens by loading the agent with only a
// loopback server (control=127.0.0.1:0) through HotSpot's attach mechanism. A server this
// command opened is its to detach at the end; one that listened before is someone else's.
#pragma once

#include <sys/types.h>

#include <string>

#include "protocol/client.h"

namespace stackscope::cli {

struct DrivenJvm {
  pid_t pid = 0;
  protocol::Client client;
  protocol::Json hello;
  bool opened_server = false;  // loaded by this command: detach it at the end
};

// "4242" -> 4242; UserError for anything else.
pid_t parsePid(const std::string& text);

// Connects to JVM `pid`'s control server, loading the agent first when none listens. The
// attach library's errors (no such process, another user's JVM, attach disabled, a JVM that
// does not answer) are UserErrors with its message.
void connectOrLoadAgent(pid_t pid, int timeout_ms, DrivenJvm& jvm);

// One request; the agent's refusal or a broken connection is a UserError.
protocol::Json askJvm(DrivenJvm& jvm, protocol::Json command);

// When this command opened the server and the agent refused its `start` as `unavailable`, the
// agent records already: it was loaded at the JVM's start without control=. A detach would
// end that recording: the command closes only the server it opened (closeServer). The file
// that recording goes to (from status), or "its file".
std::string runningRecordingFile(DrivenJvm& jvm);

// Closes the agent's control server only (protocol `close`; a recording goes on) and waits
// until it closed the connection. False when that took longer than `timeout_ms`.
bool closeServer(DrivenJvm& jvm, int timeout_ms);

// Detaches the agent and waits until it closed the connection, which it does once its
// threads are out of the JVM. False when that took longer than `timeout_ms`.
bool detachAgent(DrivenJvm& jvm, int timeout_ms);

}  // namespace stackscope::cli

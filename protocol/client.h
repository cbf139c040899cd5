// The front-end's side of a control connection (used by `stackscope connect`, `attach` and
// the tests): frames over a blocking socket with time limits, hello, and one request at a
// time with its reply. Stream frames that arrive while a reply is awaited go to a sink.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "protocol/endpoint.h"
#include "protocol/frame.h"
#include "protocol/message.h"

namespace stackscope::protocol {

class Client {
 public:
  using StreamSink = std::function<void(std::string_view bytes)>;
  enum class Received { Frame, Closed, Timeout, Failed };

  Client() = default;
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connect(const Endpoint& endpoint, std::string& error, const ConnectLimits& limits = {});
  // Sends hello with `token`, offering every version this build speaks; `reply` is the
  // agent's answer (version, pid, jvm, capabilities). False when refused.
  bool hello(const std::string& token, Json& reply, std::string& error);
  // Sends `command` (an object with "cmd") with a fresh id and waits up to `timeout_ms` for
  // its reply. False on a transport failure, an Error frame, or a reply with ok=false
  // (`reply` then holds it, `error` its message).
  bool request(Json command, Json& reply, std::string& error, int timeout_ms = 10'000);

  void setStreamSink(StreamSink sink) { sink_ = std::move(sink); }
  // The next frame of any type, waiting up to `timeout_ms` (-1: no limit).
  Received receive(Frame& out, int timeout_ms, std::string& error);
  bool send(FrameType type, std::string_view payload, std::string& error);
  bool sendRaw(std::string_view bytes, std::string& error);  // tests: bytes that are no frame
  void close();
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  int64_t next_id_ = 1;
  FrameDecoder decoder_;
  StreamSink sink_;
};

// `target` is a PID (found through its control files, discovery.h), HOST:PORT or unix:PATH.
// Without `token`, a PID's token file gives it, and for an address the control files of
// this machine's JVMs are searched for that address. Connects (within `limits`) and says hello.
bool connectToAgent(std::string_view target, std::string token, Client& client, Json& hello_reply, std::string& error,
                    const ConnectLimits& limits = {});

}  // namespace stackscope::protocol

// Where a control server listens: "HOST:PORT" (an IPv4 address; port 0 = any free port) or
// "unix:PATH". The agent option control= and `stackscope connect HOST:PORT` share this parser.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace stackscope::protocol {

struct Endpoint {
  bool is_unix = false;
  std::string host;  // dotted IPv4 (TCP)
  uint16_t port = 0;
  std::string path;  // unix socket path

  std::string text() const;  // back to "HOST:PORT" or "unix:PATH"
};

// "PORT" alone means 127.0.0.1:PORT: loopback unless an address is written out.
bool parseEndpoint(std::string_view text, Endpoint& out, std::string& why);

// A bound socket's "HOST:PORT", or "" on failure.
std::string localAddressOf(int fd);

// How long a connect may wait for the other end to answer, and a question asked every
// kConnectPollMs meanwhile: true ends the wait (Ctrl-C). An address that drops the connection
// request (a firewall, a server whose queue of connections is full) otherwise holds a
// blocking connect for the kernel's ~2 minutes of retries.
struct ConnectLimits {
  static constexpr int kDefaultTimeoutMs = 5'000;
  static constexpr int kConnectPollMs = 100;
  int timeout_ms = kDefaultTimeoutMs;
  std::function<bool()> cancelled = {};
};

// A connected, blocking stream socket, or -1 with `error` set: the connect's own error, no
// answer within the limit, or cancelled.
int connectTo(const Endpoint& endpoint, std::string& error, const ConnectLimits& limits = {});

}  // namespace stackscope::protocol

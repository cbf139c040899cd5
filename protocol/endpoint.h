// Where a control server listens: "HOST:PORT" (an IPv4 address; port 0 = any free port) or
// "unix:PATH". The agent option control= and `stackscope connect HOST:PORT` share this parser.
#pragma once

#include <cstdint>
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

// A connected, blocking stream socket, or -1 with `error` set.
int connectTo(const Endpoint& endpoint, std::string& error);

}  // namespace stackscope::protocol

#include "protocol/endpoint.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace stackscope::protocol {

std::string Endpoint::text() const { return is_unix ? "unix:" + path : host + ":" + std::to_string(port); }

namespace {

bool parsePort(std::string_view text, uint16_t& port) {
  if (text.empty() || text.size() > 5) return false;
  uint32_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<uint32_t>(c - '0');
  }
  if (value > 65535) return false;
  port = static_cast<uint16_t>(value);
  return true;
}

}  // namespace

bool parseEndpoint(std::string_view text, Endpoint& out, std::string& why) {
  Endpoint endpoint;
  if (text.starts_with("unix:")) {
    endpoint.is_unix = true;
    endpoint.path = std::string(text.substr(5));
    if (endpoint.path.empty() || endpoint.path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      why = "expected unix:PATH with a path of 1 to 107 bytes";
      return false;
    }
    out = std::move(endpoint);
    return true;
  }
  const size_t colon = text.rfind(':');
  const std::string_view host = colon == std::string_view::npos ? "127.0.0.1" : text.substr(0, colon);
  const std::string_view port = colon == std::string_view::npos ? text : text.substr(colon + 1);
  in_addr address{};
  if (!parsePort(port, endpoint.port) || inet_pton(AF_INET, std::string(host).c_str(), &address) != 1) {
    why = "expected PORT, IPv4:PORT (port 0 picks a free one) or unix:PATH";
    return false;
  }
  endpoint.host = std::string(host);
  out = std::move(endpoint);
  return true;
}

std::string localAddressOf(int fd) {
  sockaddr_in address{};
  socklen_t size = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0 || address.sin_family != AF_INET) return {};
  char host[INET_ADDRSTRLEN] = "";
  if (!inet_ntop(AF_INET, &address.sin_addr, host, sizeof host)) return {};
  return std::string(host) + ":" + std::to_string(ntohs(address.sin_port));
}

namespace {

// Waits for a non-blocking connect in progress on `fd` to finish: 0, or an errno value;
// ETIMEDOUT past the limit, ECANCELED when cancelled.
int awaitConnect(int fd, const ConnectLimits& limits) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.timeout_ms);
  for (;;) {
    if (limits.cancelled && limits.cancelled()) return ECANCELED;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return ETIMEDOUT;
    pollfd waiting{fd, POLLOUT, 0};
    const int ready = poll(&waiting, 1, static_cast<int>(std::min<int64_t>(left, ConnectLimits::kConnectPollMs)));
    if (ready < 0 && errno != EINTR) return errno;
    if (ready <= 0) continue;  // a signal (the cancel is asked next) or the slice's end
    int result = 0;
    socklen_t size = sizeof result;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &size) != 0) return errno;
    return result;
  }
}

}  // namespace

int connectTo(const Endpoint& endpoint, std::string& error, const ConnectLimits& limits) {
  const int fd = socket(endpoint.is_unix ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::string("cannot create a socket: ") + std::strerror(errno);
    return -1;
  }
  int result = -1;
  if (endpoint.is_unix) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, endpoint.path.data(), endpoint.path.size());
    result = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  } else {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(endpoint.port);
    inet_pton(AF_INET, endpoint.host.c_str(), &address.sin_addr);
    result = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  }
  // A unix socket whose server's queue is full says EAGAIN at once: a refusal, as a full
  // TCP queue would be after its retries.
  int failure = result == 0 ? 0 : errno;
  if (failure == EINPROGRESS) failure = awaitConnect(fd, limits);
  if (failure == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) failure = errno;
  if (failure != 0) {
    error = "cannot connect to " + endpoint.text() + ": ";
    if (failure == ETIMEDOUT) error += "no answer within " + std::to_string(limits.timeout_ms) + " ms";
    else if (failure == ECANCELED) error += "interrupted";
    else error += std::strerror(failure);
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace stackscope::protocol

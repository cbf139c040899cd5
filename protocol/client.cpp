#include "protocol/client.h"

#include <dirent.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>

#include "protocol/discovery.h"

namespace stackscope::protocol {

Client::~Client() { close(); }

void Client::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Client::connect(const Endpoint& endpoint, std::string& error, const ConnectLimits& limits) {
  close();
  fd_ = connectTo(endpoint, error, limits);
  decoder_ = FrameDecoder();
  return fd_ >= 0;
}

bool Client::sendRaw(std::string_view bytes, std::string& error) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::string("cannot send to the agent: ") + std::strerror(errno);
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool Client::send(FrameType type, std::string_view payload, std::string& error) {
  std::string frame;
  appendFrame(frame, type, payload);
  return sendRaw(frame, error);
}

Client::Received Client::receive(Frame& out, int timeout_ms, std::string& error) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    switch (const DecodeResult result = decoder_.next(out)) {
      case DecodeResult::Frame: return Received::Frame;
      case DecodeResult::NeedMore: break;
      default:
        error = std::string("the agent sent ") + describe(result);
        return Received::Failed;
    }
    int wait = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return Received::Timeout;
      wait = static_cast<int>(left);
    }
    pollfd entry{fd_, POLLIN, 0};
    const int ready = poll(&entry, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      error = std::string("poll: ") + std::strerror(errno);
      return Received::Failed;
    }
    if (ready == 0) return Received::Timeout;
    char buffer[64 * 1024];
    const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return Received::Closed;
    if (n < 0) {
      error = std::string("cannot read from the agent: ") + std::strerror(errno);
      return Received::Failed;
    }
    decoder_.feed(buffer, static_cast<size_t>(n));
  }
}

bool Client::hello(const std::string& token, Json& reply, std::string& error) {
  Json versions = Json::array();
  for (int64_t v = kProtocolVersion; v >= kOldestProtocolVersion; --v) versions.push_back(v);
  return request(Json{{"cmd", "hello"}, {"token", token}, {"versions", versions}}, reply, error);
}

bool Client::request(Json command, Json& reply, std::string& error, int timeout_ms) {
  const int64_t id = next_id_++;
  command["id"] = id;
  if (!send(FrameType::Request, encode(command), error)) return false;
  for (;;) {
    Frame frame;
    switch (receive(frame, timeout_ms, error)) {
      case Received::Frame: break;
      case Received::Closed: error = "the agent closed the connection"; return false;
      case Received::Timeout: error = "no reply from the agent within " + std::to_string(timeout_ms) + " ms"; return false;
      case Received::Failed: return false;
    }
    if (frame.type == FrameType::Stream) {
      if (sink_) sink_(frame.payload);
      continue;
    }
    Json message;
    if (!parseObject(frame.payload, message)) {
      error = "the agent sent a message that is not a JSON object";
      return false;
    }
    std::string code;
    std::string text;
    getString(message, "message", text);
    if (frame.type == FrameType::Error) {
      getString(message, "error", code);
      error = "the agent refused the connection (" + code + "): " + text;
      reply = std::move(message);
      return false;
    }
    int64_t reply_id = 0;
    if (frame.type != FrameType::Reply || !getInt(message, "id", reply_id) || reply_id != id) continue;
    bool ok = false;
    getBool(message, "ok", ok);
    reply = std::move(message);
    if (!ok) error = text.empty() ? "the agent refused the command" : text;
    return ok;
  }
}

namespace {

bool allDigits(std::string_view text) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text)
    if (c < '0' || c > '9') return false;
  return true;
}

// The token of the local agent listening at `address`, from the control files in /tmp.
std::string tokenForAddress(const std::string& address) {
  DIR* dir = opendir(kControlDirectory);
  if (!dir) return {};
  std::string token;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    const std::string suffix = ".address";
    if (!name.starts_with("stackscope-") || !name.ends_with(suffix)) continue;
    std::ifstream in(std::string(kControlDirectory) + "/" + name);
    std::string line;
    std::getline(in, line);
    if (line != address) continue;
    std::ifstream token_in(std::string(kControlDirectory) + "/" + name.substr(0, name.size() - suffix.size()) + ".token");
    std::getline(token_in, token);
    break;
  }
  closedir(dir);
  return token;
}

}  // namespace

bool connectToAgent(std::string_view target, std::string token, Client& client, Json& hello_reply, std::string& error,
                    const ConnectLimits& limits) {
  Endpoint endpoint;
  if (allDigits(target)) {
    AgentLocation location;
    if (!locateAgent(std::stol(std::string(target)), location, error)) return false;
    std::string why;
    if (!parseEndpoint(location.address, endpoint, why)) {
      error = "the control file of process " + std::string(target) + " holds a bad address '" + location.address + "'";
      return false;
    }
    if (token.empty()) token = location.token;
  } else {
    std::string why;
    if (!parseEndpoint(target, endpoint, why)) {
      error = "bad target '" + std::string(target) + "': expected a PID, HOST:PORT or unix:PATH";
      return false;
    }
    if (token.empty()) token = tokenForAddress(endpoint.text());
    if (token.empty()) {
      error = "no token for " + endpoint.text() + ": no local agent's control file names it; give --token";
      return false;
    }
  }
  if (!client.connect(endpoint, error, limits)) {
    // The files of a JVM killed with -9 outlive it; another process may have its pid since.
    if (allDigits(target)) error += " (the control files of process " + std::string(target) + " may be stale)";
    return false;
  }
  return client.hello(token, hello_reply, error);
}

}  // namespace stackscope::protocol

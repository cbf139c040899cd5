#include "agent/control_server.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agent/clocks.h"
#include "protocol/discovery.h"
#include "protocol/token.h"

namespace stackscope::agent {

using protocol::Json;

namespace {

// A stream frame carries at most this much of the recording: the file is the stream's
// buffer, so a slow client costs no memory, only a lag.
constexpr size_t kStreamFrameBytes = 256 * 1024;
// Replies waiting for a client that does not read: past this, its requests are not read.
constexpr size_t kMaxPendingReplies = 1u << 20;
// After an Error frame the connection's input is drained this long before it is closed, so
// that closing with unread input (which resets the connection) cannot destroy the frame.
constexpr int64_t kCloseDrainNs = 1'000'000'000;
// A connection that has not said hello by then is refused: a client without the token must
// not hold one of the kMaxClients places for long.
constexpr int64_t kHelloTimeoutNs = 5'000'000'000;
// How often streaming clients are offered new bytes of the recording.
constexpr int kStreamPollMs = 100;
// When the server stops after the recording ended, how long it goes on sending streaming
// clients the recording's last bytes.
constexpr int64_t kFinalStreamNs = 2'000'000'000;

const char* const kCommands[] = {"hello",  "status", "start",  "stop",   "mark", "dump",
                                 "stream", "filter", "histo", "detach", "close"};

}  // namespace

ControlServer::~ControlServer() { stop(0); }

bool ControlServer::open(const protocol::Endpoint& endpoint, long pid, std::string& error) {
  token_ = protocol::newToken();
  if (token_.empty()) {
    error = "no random bytes for the control token";
    return false;
  }
  const int fd = socket(endpoint.is_unix ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    error = std::string("cannot create a socket: ") + std::strerror(errno);
    return false;
  }
  int bound = -1;
  if (endpoint.is_unix) {
    struct stat st {};
    // A socket left by an earlier process is replaced; any other file is not ours to remove.
    if (lstat(endpoint.path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) unlink(endpoint.path.c_str());
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, endpoint.path.data(), endpoint.path.size());
    bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    if (bound == 0) chmod(endpoint.path.c_str(), 0600);  // the JVM's user only, like the token
  } else {
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(endpoint.port);
    inet_pton(AF_INET, endpoint.host.c_str(), &address.sin_addr);
    bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  }
  if (bound != 0 || listen(fd, 16) != 0) {
    error = "cannot listen on " + endpoint.text() + ": " + std::strerror(errno);
    close(fd);
    return false;
  }
  address_ = endpoint.is_unix ? endpoint.text() : protocol::localAddressOf(fd);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (address_.empty() || wake_fd_ < 0) {
    error = std::string("cannot set up the control server: ") + std::strerror(errno);
    close(fd);
    if (wake_fd_ >= 0) close(wake_fd_);
    wake_fd_ = -1;
    return false;
  }
  listen_fd_ = fd;
  if (endpoint.is_unix) unix_path_ = endpoint.path;
  pid_ = pid;
  files_written_ = protocol::writeControlFiles(protocol::kControlDirectory, pid, address_, token_, error);
  if (!files_written_) {
    stop(0);
    return false;
  }
  return true;
}

bool ControlServer::start(jvmtiEnv* jvmti, JNIEnv* jni, ControlHandler* handler) {
  if (listen_fd_ < 0) return false;
  handler_ = handler;
  thread_started_ = thread_.start(jvmti, jni, "stackscope-control", run, this);
  return thread_started_;
}

void ControlServer::stop(int64_t timeout_ns) {
  stopping_.store(true, std::memory_order_release);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t ignored = write(wake_fd_, &one, sizeof one);
  }
  // A thread that does not end keeps its descriptors: closing them under it would be worse.
  if (thread_started_ && !thread_.stop(timeout_ns)) return;
  thread_started_ = false;
  closeAll();
}

void ControlServer::closeAll() {
  for (auto& client : clients_) close(client->fd);
  clients_.clear();
  client_count_.store(0, std::memory_order_relaxed);
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
  if (wake_fd_ >= 0) close(wake_fd_);
  wake_fd_ = -1;
  if (files_written_) protocol::removeControlFiles(protocol::kControlDirectory, pid_);
  files_written_ = false;
  if (!unix_path_.empty()) unlink(unix_path_.c_str());
  unix_path_.clear();
}

void ControlServer::run(void* self, JNIEnv* jni, AgentThread&) { static_cast<ControlServer*>(self)->serve(jni); }

void ControlServer::serve(JNIEnv* jni) {
  std::vector<pollfd> fds;
  bool stream_progress = false;
  while (!stopping_.load(std::memory_order_acquire)) {
    fds.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    bool waiting_for_stream = false;
    for (auto& client : clients_) {
      short events = 0;
      if (client->state == Client::State::Draining ||
          (client->state == Client::State::Open && client->pending() < kMaxPendingReplies)) {
        events |= POLLIN;
      }
      if (client->pending() > 0) events |= POLLOUT;
      if (client->streaming && client->pending() == 0) waiting_for_stream = true;
      fds.push_back({client->fd, events, 0});
    }
    const bool draining = std::any_of(clients_.begin(), clients_.end(),
                                      [](const auto& c) { return c->state == Client::State::Draining; });
    // A stream that just got bytes may have more at once (a client catching up): no wait.
    int timeout = stream_progress ? 0 : waiting_for_stream || draining ? kStreamPollMs : -1;
    for (const auto& client : clients_) {
      if (client->state != Client::State::Open || client->authenticated) continue;
      const int64_t left_ms = std::max<int64_t>(0, (client->hello_deadline_ns - monotonicNs()) / 1'000'000 + 1);
      if (timeout < 0 || left_ms < timeout) timeout = static_cast<int>(left_ms);
    }
    if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      uint64_t count = 0;
      [[maybe_unused]] ssize_t ignored = read(wake_fd_, &count, sizeof count);
    }
    if (stopping_.load(std::memory_order_acquire)) break;
    // The clients polled are the first fds.size() - 2 of clients_: accept() appends after them.
    const size_t polled = fds.size() - 2;
    if (fds[1].revents & POLLIN) accept();
    const int64_t now = monotonicNs();
    for (size_t i = 0; i < polled; ++i) {
      Client& client = *clients_[i];
      const short revents = fds[i + 2].revents;
      if (revents & POLLIN) receive(jni, client);
      if (client.state != Client::State::Dead && (revents & (POLLHUP | POLLERR)) && !(revents & POLLIN)) {
        client.state = Client::State::Dead;
      }
      if (client.state == Client::State::Draining && now >= client.drain_deadline_ns) client.state = Client::State::Dead;
      if (client.state == Client::State::Open && !client.authenticated && now >= client.hello_deadline_ns) {
        refuse(client, protocol::error::kUnauthenticated, "no hello within the time limit");
      }
    }
    stream_progress = false;
    for (auto& client : clients_) {
      if (client->state == Client::State::Dead) continue;
      const uint64_t offset = client->stream_offset;
      fillStream(*client);
      stream_progress = stream_progress || client->stream_offset != offset;
      if (client->pending() > 0) send(*client);
    }
    std::erase_if(clients_, [](const std::unique_ptr<Client>& client) {
      if (client->state != Client::State::Dead) return false;
      close(client->fd);
      return true;
    });
    client_count_.store(clients_.size(), std::memory_order_relaxed);
    if (detach_fd_ >= 0) {
      // The handler's thread closes the duplicate once the agent is gone (control_handler.h).
      const int requester = dup(detach_fd_);
      detach_fd_ = -1;
      detaching_ = true;
      if (!(closing_only_ ? handler_->closeServer(jni, requester) : handler_->detach(jni, requester))) {
        finishStreams();
        closeAll();
        return;
      }
    }
  }
  finishStreams();
}

void ControlServer::finishStreams() {
  const int64_t deadline = monotonicNs() + kFinalStreamNs;
  std::vector<pollfd> fds;
  // Once everything written so far is out, a stream of a recording that goes on (a close, or
  // a server stopping first at the JVM's exit) ends all the same: its client gets the end
  // frame rather than a cut connection (docs/protocol.md, invariant 7).
  bool ending = false;
  for (;;) {
    bool progress = false;
    fds.clear();
    for (auto& client : clients_) {
      if (client->state == Client::State::Dead) continue;
      fillStream(*client);  // the end frame too, once the recording is all sent
      if (ending && client->streaming && client->pending() == 0) endStream(*client);
      if (client->pending() == 0) continue;
      progress = true;
      send(*client);
      if (client->state != Client::State::Dead && client->pending() > 0) fds.push_back({client->fd, POLLOUT, 0});
    }
    if (!progress) {
      if (ending) return;
      ending = true;
      continue;
    }
    const int64_t left_ms = (deadline - monotonicNs()) / 1'000'000;
    if (left_ms <= 0) return;
    if (!fds.empty()) poll(fds.data(), fds.size(), static_cast<int>(left_ms));
  }
}

void ControlServer::accept() {
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;  // EAGAIN: none left; anything else: the next poll tries again
    auto client = std::make_unique<Client>();
    client->fd = fd;
    client->hello_deadline_ns = monotonicNs() + kHelloTimeoutNs;
    clients_.push_back(std::move(client));
    if (clients_.size() > kMaxClients) {
      refuse(*clients_.back(), protocol::error::kUnavailable,
             "too many clients (at most " + std::to_string(kMaxClients) + ")");
    }
  }
}

void ControlServer::receive(JNIEnv* jni, Client& client) {
  char buffer[64 * 1024];
  const ssize_t n = recv(client.fd, buffer, sizeof buffer, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    client.state = Client::State::Dead;  // gone, or reset: the recording goes on without it
    return;
  }
  if (client.state != Client::State::Open) return;  // closing: its input is only drained
  client.decoder.feed(buffer, static_cast<size_t>(n));
  protocol::Frame frame;
  while (client.state == Client::State::Open) {
    const protocol::DecodeResult result = client.decoder.next(frame);
    if (result == protocol::DecodeResult::NeedMore) return;
    if (result == protocol::DecodeResult::Frame) {
      handle(jni, client, frame);
    } else {
      refuse(client, result == protocol::DecodeResult::Oversized ? protocol::error::kOversized : protocol::error::kBadFrame,
             std::string("received ") + protocol::describe(result));
    }
  }
}

void ControlServer::handle(JNIEnv* jni, Client& client, const protocol::Frame& frame) {
  if (frame.type != protocol::FrameType::Request) {
    refuse(client, protocol::error::kBadFrame, "a client sends Request frames only");
    return;
  }
  Json request;
  std::string cmd;
  if (!protocol::parseObject(frame.payload, request) || !protocol::getString(request, "cmd", cmd)) {
    refuse(client, protocol::error::kMalformed, "a request is a JSON object with a string \"cmd\"");
    return;
  }
  if (!client.authenticated) {
    std::string token;
    if (cmd != "hello" || !protocol::getString(request, "token", token) || !protocol::sameToken(token, token_)) {
      refuse(client, protocol::error::kUnauthenticated, "the first request must be hello with the agent's token");
      return;
    }
  }
  if (cmd == "hello") {
    int64_t chosen = 0;
    const auto versions = request.find("versions");
    if (versions != request.end() && versions->is_array()) {
      for (const Json& v : *versions) {
        if (v.is_number_integer() && v.get<int64_t>() >= protocol::kOldestProtocolVersion &&
            v.get<int64_t>() <= protocol::kProtocolVersion && v.get<int64_t>() > chosen) {
          chosen = v.get<int64_t>();
        }
      }
    }
    if (chosen == 0) {
      refuse(client, protocol::error::kUnsupportedVersion,
             "this agent speaks protocol versions " + std::to_string(protocol::kOldestProtocolVersion) + " to " +
                 std::to_string(protocol::kProtocolVersion));
      return;
    }
    client.authenticated = true;
    Json reply = protocol::okReply(request);
    reply["version"] = chosen;
    reply["commands"] = kCommands;
    handler_->describe(reply);
    this->reply(client, reply);
    return;
  }
  command(jni, client, request);
}

void ControlServer::command(JNIEnv* jni, Client& client, const Json& request) {
  std::string cmd;
  protocol::getString(request, "cmd", cmd);
  ControlOutcome outcome;
  if (cmd == "status") {
    Json reply = protocol::okReply(request);
    handler_->status(jni, reply);
    reply["clients"] = clients_.size();
    reply["control"] = address_;
    this->reply(client, reply);
    return;
  }
  // The one text argument a command takes, if any.
  if (detaching_) {
    this->reply(client, protocol::errorReply(request, protocol::error::kUnavailable,
                                             closing_only_ ? "the control server is closing" : "the agent is detaching"));
    return;
  }
  // The text arguments a command takes, if any.
  const char* text_key = cmd == "start"    ? "options"
                         : cmd == "mark"   ? "name"
                         : cmd == "dump"   ? "path"
                         : cmd == "filter" ? "filter"
                                           : nullptr;
  std::string text;
  FilterChange filter;
  for (const char* key : {text_key, cmd == "filter" ? "classes" : nullptr}) {
    if (!key || !request.contains(key)) continue;
    std::string& into = key == text_key ? text : filter.classes;
    if (!protocol::getString(request, key, into)) {
      this->reply(client, protocol::errorReply(request, protocol::error::kBadArgument,
                                               std::string("\"") + key + "\" must be a string"));
      return;
    }
  }
  if (cmd == "start") {
    outcome = handler_->start(jni, text);
  } else if (cmd == "stop") {
    outcome = handler_->stop(jni);
  } else if (cmd == "mark") {
    std::string kind_name = "point";
    protocol::getString(request, "kind", kind_name);
    const format::MarkerKind kind = kind_name == "begin" ? format::MarkerKind::Begin
                                    : kind_name == "end" ? format::MarkerKind::End
                                                         : format::MarkerKind::Point;
    if (text.empty() || (kind_name != "point" && kind_name != "begin" && kind_name != "end")) {
      outcome = ControlOutcome::refused(protocol::error::kBadArgument,
                                        "mark takes a non-empty \"name\" and a \"kind\" of point, begin or end");
    } else {
      outcome = handler_->mark(text, kind);
    }
  } else if (cmd == "dump") {
    outcome = handler_->dump(jni, text);
  } else if (cmd == "filter") {
    filter.has_annotations = request.contains("filter");
    filter.annotations = text;
    filter.has_classes = request.contains("classes");
    outcome = filter.has_annotations || filter.has_classes
                  ? handler_->setFilter(jni, filter)
                  : ControlOutcome::refused(protocol::error::kBadArgument, "filter takes \"filter\", \"classes\" or both");
  } else if (cmd == "histo") {
    outcome = handler_->histogram(jni);
  } else if (cmd == "stream") {
    client.streaming = true;
    client.stream_offset = 0;
    client.stream_recording = handler_->currentRecording();
    outcome = ControlOutcome::done("streaming the recording from its first byte");
  } else if (cmd == "detach" || cmd == "close") {
    detach_fd_ = client.fd;
    closing_only_ = cmd == "close";
    outcome = ControlOutcome::done(closing_only_ ? "closing the control server; any recording goes on" : "detaching");
  } else {
    outcome = ControlOutcome::refused(protocol::error::kUnknownCommand, "unknown command '" + cmd + "'");
  }
  Json reply = outcome.ok ? protocol::okReply(request) : protocol::errorReply(request, outcome.code, outcome.message);
  if (outcome.ok && !outcome.message.empty()) reply["message"] = outcome.message;
  if (outcome.ok && outcome.fields.is_object()) {
    for (const auto& [key, value] : outcome.fields.items()) reply[key] = value;
  }
  this->reply(client, reply);
}

void ControlServer::reply(Client& client, const Json& message) {
  protocol::appendFrame(client.out, protocol::FrameType::Reply, protocol::encode(message));
}

void ControlServer::refuse(Client& client, const char* code, std::string message) {
  protocol::appendFrame(client.out, protocol::FrameType::Error,
                        protocol::encode(protocol::connectionError(code, std::move(message))));
  client.state = Client::State::Closing;
  client.streaming = false;
}

void ControlServer::fillStream(Client& client) {
  if (!client.streaming || client.pending() > 0 || client.state != Client::State::Open) return;
  std::string bytes;
  if (!handler_->readRecording(client.stream_recording, client.stream_offset, kStreamFrameBytes, bytes)) {
    endStream(client);
    return;
  }
  if (bytes.empty()) return;
  client.stream_offset += bytes.size();
  protocol::appendFrame(client.out, protocol::FrameType::Stream, bytes);
}

void ControlServer::endStream(Client& client) {
  protocol::appendFrame(client.out, protocol::FrameType::Stream, {});  // the end: an empty frame
  client.streaming = false;
}

void ControlServer::send(Client& client) {
  while (client.pending() > 0) {
    const ssize_t n = ::send(client.fd, client.out.data() + client.out_sent, client.pending(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      client.state = Client::State::Dead;  // EPIPE, reset: the client is gone
      return;
    }
    client.out_sent += static_cast<size_t>(n);
  }
  client.out.clear();
  client.out_sent = 0;
  if (client.state == Client::State::Closing) {
    shutdown(client.fd, SHUT_WR);
    client.state = Client::State::Draining;
    client.drain_deadline_ns = monotonicNs() + kCloseDrainNs;
  }
}

}  // namespace stackscope::agent

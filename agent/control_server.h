// The control server (docs/protocol.md): one agent thread, never sampled, that listens on a
// loopback TCP port or a unix socket and serves several clients at once with poll(). Every
// connection starts with hello and the token of the control files (protocol/discovery.h);
// anything else, and any unknown, oversized or malformed frame, gets an Error frame and the
// connection is closed. A client that goes away takes nothing with it: the recording goes on.
// Nothing a client sends can reach the JVM but through the handler's commands.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agent/agent_thread.h"
#include "agent/control_handler.h"
#include "protocol/endpoint.h"
#include "protocol/frame.h"

namespace stackscope::agent {

class ControlServer {
 public:
  // A request is a small JSON object: anything larger is refused as oversized.
  static constexpr uint32_t kMaxRequestPayload = 64 * 1024;
  static constexpr size_t kMaxClients = 16;

  ControlServer() = default;
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Binds and listens (port 0: a free one), then writes the control files for `pid`. Any
  // time after Agent_OnLoad; false with `error` set.
  bool open(const protocol::Endpoint& endpoint, long pid, std::string& error);
  // Starts the server thread (live phase). The handler lives as long as the server.
  bool start(jvmtiEnv* jvmti, JNIEnv* jni, ControlHandler* handler);
  // Ends the thread (waiting at most timeout_ns), closes every connection and removes the
  // control files. Streaming clients first get what is left of a recording that ended (stop
  // after the recording, so that they get all of it), or what was written so far of one that
  // goes on, then the end frame. Not from the server thread.
  void stop(int64_t timeout_ns);

  bool isServerThread(JNIEnv* jni, jthread thread) const { return thread_.is(jni, thread); }
  AgentThread& agentThread() { return thread_; }  // whether it still runs, after stop
  bool listening() const { return listen_fd_ >= 0; }  // open succeeded and stop has not run
  const std::string& address() const { return address_; }
  const std::string& token() const { return token_; }
  size_t clients() const { return client_count_.load(std::memory_order_relaxed); }

 private:
  struct Client {
    enum class State { Open, Closing, Draining, Dead };  // Closing: an Error frame is on its way
    int fd = -1;
    State state = State::Open;
    bool authenticated = false;
    bool streaming = false;
    uint64_t stream_offset = 0;
    uint64_t stream_recording = 0;  // which recording the stream follows (ControlHandler)
    int64_t drain_deadline_ns = 0;  // Draining: closed at this monotonic time at the latest
    int64_t hello_deadline_ns = 0;  // refused if not authenticated by then
    protocol::FrameDecoder decoder{kMaxRequestPayload};
    std::string out;
    size_t out_sent = 0;

    size_t pending() const { return out.size() - out_sent; }
  };

  static void run(void* self, JNIEnv* jni, AgentThread& thread);
  void serve(JNIEnv* jni);
  void accept();
  void receive(JNIEnv* jni, Client& client);
  void handle(JNIEnv* jni, Client& client, const protocol::Frame& frame);
  void command(JNIEnv* jni, Client& client, const protocol::Json& request);
  void reply(Client& client, const protocol::Json& message);
  void refuse(Client& client, const char* code, std::string message);  // Error frame, then close
  void fillStream(Client& client);
  void endStream(Client& client);  // queues the empty Stream frame: no more bytes will come
  void send(Client& client);
  // Sends streaming clients what is left of a recording that ended, within a time limit.
  void finishStreams();
  void closeAll();

  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: stop() wakes the poll
  long pid_ = 0;
  bool files_written_ = false;
  std::string address_;
  std::string token_;
  std::string unix_path_;  // removed at stop
  ControlHandler* handler_ = nullptr;
  AgentThread thread_;
  std::atomic<bool> stopping_{false};
  int detach_fd_ = -1;     // the connection that asked for a detach, until it is handed over
  bool closing_only_ = false;  // the handover is a close: only the server goes
  bool detaching_ = false;  // handed to the handler's detach or close: every command is refused
  bool thread_started_ = false;
  std::vector<std::unique_ptr<Client>> clients_;
  std::atomic<size_t> client_count_{0};
};

}  // namespace stackscope::agent

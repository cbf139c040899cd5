// A control server that does not answer the connection (a firewall that drops it; here a real
// listening socket on 127.0.0.1 whose queue of connections is full, so the kernel drops the
// connection requests as a firewall would): the connect of `connect` and `top` gives up after
// --connect-timeout, and Ctrl-C or SIGTERM ends its wait, each with one error line. No JVM.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "process.h"
#include "protocol/endpoint.h"

namespace it {
namespace {

using stackscope::protocol::ConnectLimits;
using stackscope::protocol::Endpoint;

// A listening socket that never accepts, with its queue filled by connections of its own:
// the next connection request to its port gets no answer.
class UnansweredListener {
 public:
  UnansweredListener() {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener_, 0) != 0 || getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) != 0)
      throw std::runtime_error("cannot listen on 127.0.0.1");
    port_ = ntohs(address.sin_port);
    // Connections until one is not answered: the queue is full (a backlog of 0 holds one).
    constexpr int kMaxFillers = 16;
    for (int i = 0; i < kMaxFillers; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      fillers_.push_back(fd);
      if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) continue;
      pollfd waiting{fd, POLLOUT, 0};
      if (poll(&waiting, 1, 500) == 0) return;  // not answered
    }
    throw std::runtime_error("the listener's queue did not fill");
  }
  ~UnansweredListener() {
    for (int fd : fillers_) close(fd);
    close(listener_);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int listener_ = -1;
  uint16_t port_ = 0;
  std::vector<int> fillers_;
};

Endpoint endpointOf(const std::string& text) {
  Endpoint endpoint;
  std::string why;
  EXPECT_TRUE(stackscope::protocol::parseEndpoint(text, endpoint, why)) << why;
  return endpoint;
}

TEST(ConnectTimeout, AConnectThatGetsNoAnswerFailsAtItsLimit) {
  const UnansweredListener server;
  ConnectLimits limits;
  limits.timeout_ms = 300;
  std::string error;
  EXPECT_EQ(stackscope::protocol::connectTo(endpointOf(server.address()), error, limits), -1);
  EXPECT_EQ(error, "cannot connect to " + server.address() + ": no answer within 300 ms");
}

TEST(ConnectTimeout, ACancelEndsTheWait) {
  const UnansweredListener server;
  ConnectLimits limits;
  limits.timeout_ms = 3'600'000;
  int asked = 0;
  limits.cancelled = [&asked] { return ++asked == 3; };  // the third look: two poll slices waited
  std::string error;
  EXPECT_EQ(stackscope::protocol::connectTo(endpointOf(server.address()), error, limits), -1);
  EXPECT_EQ(error, "cannot connect to " + server.address() + ": interrupted");
  EXPECT_EQ(asked, 3);
}

TEST(ConnectTimeout, ConnectSaysItGotNoAnswerWithinConnectTimeout) {
  const UnansweredListener server;
  const ProcessResult r =
      run({STACKSCOPE_BIN, "connect", server.address(), "--token", "t", "--connect-timeout", "300ms", "status"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "stackscope: error: cannot connect to " + server.address() + ": no answer within 300 ms\n");
}

// Waits until `pid` holds a socket: the command is in its connect, its InterruptScope set.
bool holdsASocket(pid_t pid) {
  for (int tries = 0; tries < 600; ++tries) {
    std::error_code ignored;
    for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ignored))
      if (std::filesystem::read_symlink(fd.path(), ignored).string().starts_with("socket:")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(ConnectTimeout, SigintOrSigtermEndsTheWaitOfTopAndConnect) {
  const UnansweredListener server;
  for (const auto& [command, signal_number] : {std::pair{"top", SIGTERM}, std::pair{"connect", SIGINT}}) {
    Child child({STACKSCOPE_BIN, command, server.address(), "--token", "t", "--connect-timeout", "1h"});
    ASSERT_TRUE(holdsASocket(child.pid())) << command;
    kill(child.pid(), signal_number);
    const ProcessResult r = child.wait(std::chrono::seconds(60));
    EXPECT_FALSE(r.timed_out) << command;
    EXPECT_EQ(r.exit_code, 1) << command << ": " << r.err;
    EXPECT_EQ(r.err, "stackscope: error: cannot connect to " + server.address() + ": interrupted\n") << command;
  }
}

}  // namespace
}  // namespace it

// A test that drives a JVM's agent over its control server (docs/protocol.md), on real
// sockets on 127.0.0.1: a client connected by PID, requests, and the command line's
// `stackscope connect`.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "annotation_helpers.h"
#include "protocol/client.h"
#include "protocol/discovery.h"

namespace it {

using protocol_json = stackscope::protocol::Json;
using stackscope::protocol::Client;
inline constexpr auto kControlWait = std::chrono::seconds(60);

// The markers of a recording as "kind name", in order.
inline std::vector<std::string> markers(const std::string& path) {
  ProcessResult listed = run({STACKSCOPE_BIN, "snapshots", path, "--json"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  const json snapshots = json::parse(listed.out);  // kept: a range-for over a temporary's member dangles
  std::vector<std::string> out;
  for (const json& m : snapshots.at("markers")) out.push_back(m.value("kind", "") + " " + m.value("name", ""));
  return out;
}

class ControlTest : public RecordingTest {
 protected:
  // Waits until the JVM's agent listens (its control files), then connects.
  void connect(pid_t pid) {
    const auto deadline = std::chrono::steady_clock::now() + kControlWait;
    std::string error;
    protocol_json hello;
    while (!stackscope::protocol::connectToAgent(std::to_string(pid), "", client_, hello, error) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_EQ(hello.value("pid", 0), pid) << error;
  }

  protocol_json request(protocol_json command) {
    protocol_json reply;
    std::string error;
    EXPECT_TRUE(client_.request(std::move(command), reply, error)) << error;
    return reply;
  }

  // Polls status until the recording's writer has published `count` samples more than now.
  void waitForMoreSamples(int64_t count) {
    const int64_t start = request({{"cmd", "status"}}).value("samples", int64_t{0});
    const auto deadline = std::chrono::steady_clock::now() + kControlWait;
    while (request({{"cmd", "status"}}).value("samples", int64_t{0}) < start + count &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  // Polls status until the recording is in its part `part` or later (rotation); that status.
  protocol_json statusAtPart(int64_t part) {
    protocol_json status = request({{"cmd", "status"}});
    for (const auto deadline = std::chrono::steady_clock::now() + kControlWait;
         status.value("part", int64_t{0}) < part && std::chrono::steady_clock::now() < deadline;
         status = request({{"cmd", "status"}})) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return status;
  }

  // `stackscope connect PID WORDS...`, which must succeed.
  ProcessResult connectCommand(pid_t pid, const std::vector<std::string>& words) {
    std::vector<std::string> argv{STACKSCOPE_BIN, "connect", std::to_string(pid)};
    argv.insert(argv.end(), words.begin(), words.end());
    ProcessResult result = run(argv);
    EXPECT_EQ(result.exit_code, 0) << words[0] << ": " << result.err << result.out;
    return result;
  }

  Client client_;
};

}  // namespace it

// How a stream ends, and markers named over control, on real JVMs over real sockets on
// 127.0.0.1: a `stackscope connect … stream` client gets the protocol's end of stream (the
// empty Stream frame, docs/protocol.md invariant 7) when the server closes while the
// recording goes on and when the JVM exits; `connect … mark begin:NAME` is refused with the
// syntax of a begin marker.
#include <filesystem>
#include <fstream>
#include <iterator>

#include "control_fixture.h"

namespace it {
namespace {

using ControlStreams = ControlTest;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `stackscope connect PID stream -o PATH --json`, running once its file has bytes.
std::unique_ptr<Child> startStreaming(pid_t pid, const std::string& path) {
  auto streamer = std::make_unique<Child>(
      std::vector<std::string>{STACKSCOPE_BIN, "connect", std::to_string(pid), "stream", "-o", path, "--json"});
  const auto deadline = std::chrono::steady_clock::now() + kControlWait;
  while ((!std::filesystem::exists(path) || std::filesystem::file_size(path) == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return streamer;
}

// The streaming client's `--json` line says whether the end frame came.
void expectEndOfStream(Child& streamer) {
  const ProcessResult streamed = streamer.wait(kControlWait);
  ASSERT_EQ(streamed.exit_code, 0) << streamed.err << streamed.out;
  const json line = json::parse(streamed.out);
  EXPECT_EQ(line.value("ended", false), true) << streamed.out;
}

TEST_F(ControlStreams, ACloseWhileRecordingEndsTheStreamWithTheEndFrame) {
  Child jvm(javaCommand("AttachTarget", {"60000"},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,control=0,file=" + file("rec.ssr")}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kControlWait));
  connect(jvm.pid());
  const std::string streamed = file("streamed.ssr");
  auto streamer = startStreaming(jvm.pid(), streamed);
  waitForMoreSamples(40);
  connectCommand(jvm.pid(), {"close"});
  expectEndOfStream(*streamer);
  // What came is the recording so far, complete chunks the reader reads.
  const json methods = report(streamed);
  EXPECT_GE(methods.at("samples").get<double>(), 40) << methods.dump(1).substr(0, 2000);
}

TEST_F(ControlStreams, AJvmThatExitsEndsTheStreamWithTheEndFrameAfterTheWholeRecording) {
  const std::string path = file("rec.ssr");
  Child jvm(javaCommand("AttachTarget", {"3000"},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,control=0,file=" + path}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kControlWait));
  connect(jvm.pid());
  const std::string streamed = file("streamed.ssr");
  auto streamer = startStreaming(jvm.pid(), streamed);

  // A name in the syntax `begin:NAME` would make a point marker of that name: refused, with
  // the right syntax in the message, and nothing recorded; the right syntax works.
  for (const char* kind : {"begin", "end"}) {
    const ProcessResult refused =
        run({STACKSCOPE_BIN, "connect", std::to_string(jvm.pid()), "mark", std::string(kind) + ":burst"});
    EXPECT_EQ(refused.exit_code, 1) << refused.err;
    EXPECT_NE(refused.err.find(std::string("`mark burst --") + kind + "`"), std::string::npos) << refused.err;
    connectCommand(jvm.pid(), {"mark", "burst", std::string("--") + kind});
  }

  EXPECT_EQ(jvm.wait(kControlWait * 2).exit_code, 0);
  expectEndOfStream(*streamer);
  // The stream is the recording, byte for byte (invariant 7).
  EXPECT_EQ(contents(streamed), contents(path));
  EXPECT_EQ(markers(path), (std::vector<std::string>{"begin burst", "end burst"}));
}

}  // namespace
}  // namespace it

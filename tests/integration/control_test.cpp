// The control server (docs/protocol.md) on a real JVM, over real sockets on 127.0.0.1: the
// workload Controlled burns CPU in phaseA until a file appears, then in phaseB. What the
// commands do is checked against the recording itself: a mark lands between the phases it
// was sent between, dump's copy and the stream read with the same reader as the file, and
// after every bad frame the JVM still records and finishes its work.
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <thread>

#include "control_fixture.h"
#include "protocol/client.h"
#include "protocol/discovery.h"

namespace it {
namespace {

using protocol_json = stackscope::protocol::Json;
using stackscope::protocol::Client;
using stackscope::protocol::Frame;
using stackscope::protocol::FrameType;

const std::string kA = kWorkloads + "Controlled.phaseA";
const std::string kB = kWorkloads + "Controlled.phaseB";
constexpr auto kWait = std::chrono::seconds(60);

void touch(const std::string& path) { std::ofstream(path) << "go\n"; }

class Control : public RecordingTest {
 protected:
  void startJvm(const std::string& control = "0") {
    recording_ = file("run.ssr");
    switch_ = file("switch");
    stop_ = file("stop");
    jvm_ = std::make_unique<Child>(javaCommand("Controlled", {switch_, stop_},
                                               {"-agentpath:" + agentPath() + "=control=" + control +
                                                ",interval=5ms,file=" + recording_}));
    ASSERT_TRUE(jvm_->waitForStdout("ready", kWait)) << "the JVM did not start";
  }

  std::string pid() const { return std::to_string(jvm_->pid()); }

  void connect(Client& client, protocol_json& hello) {
    std::string error;
    ASSERT_TRUE(stackscope::protocol::connectToAgent(pid(), "", client, hello, error)) << error;
  }

  protocol_json request(Client& client, protocol_json command) {
    protocol_json reply;
    std::string error;
    EXPECT_TRUE(client.request(std::move(command), reply, error)) << error;
    return reply;
  }

  // Polls status until the recording holds at least `count` samples (the writer publishes
  // them every drain); returns the count seen.
  int64_t waitForSamples(Client& client, int64_t count) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    int64_t samples = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      samples = request(client, {{"cmd", "status"}}).value("samples", int64_t{0});
      if (samples >= count) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return samples;
  }

  // Lets the workload end: both phases over, exit code 0.
  void finishJvm() {
    touch(switch_);
    touch(stop_);
    ProcessResult result = jvm_->wait(kWait);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("phase b"), std::string::npos);
  }

  // Connects to the JVM's server without saying hello; `token` is the agent's.
  void connectWithoutHello(Client& client, std::string& token) {
    stackscope::protocol::AgentLocation location;
    std::string error;
    EXPECT_TRUE(stackscope::protocol::locateAgent(jvm_->pid(), location, error)) << error;
    stackscope::protocol::Endpoint endpoint;
    EXPECT_TRUE(stackscope::protocol::parseEndpoint(location.address, endpoint, error));
    EXPECT_TRUE(client.connect(endpoint, error)) << error;
    token = location.token;
  }

  // Connects without the library's hello, sends `bytes` (after a hello if `hello_first`)
  // and returns the code of the Error frame the agent answers with; the connection must
  // then be closed by the agent.
  std::string refusal(const std::string& bytes, bool hello_first) {
    std::string token, error;
    Client client;
    connectWithoutHello(client, token);
    protocol_json reply;
    if (hello_first) {
      EXPECT_TRUE(client.hello(token, reply, error)) << error;
    }
    EXPECT_TRUE(client.sendRaw(bytes, error)) << error;
    Frame frame;
    EXPECT_EQ(client.receive(frame, 10'000, error), Client::Received::Frame) << error;
    EXPECT_EQ(frame.type, FrameType::Error);
    protocol_json message = protocol_json::parse(frame.payload, nullptr, false);
    Frame more;
    EXPECT_EQ(client.receive(more, 10'000, error), Client::Received::Closed) << "the connection stays open";
    return message.is_object() ? message.value("error", std::string()) : "(not JSON)";
  }

  std::unique_ptr<Child> jvm_;
  std::string recording_;
  std::string switch_;
  std::string stop_;
};

std::string frameBytes(uint8_t type, const std::string& payload) {
  std::string out;
  stackscope::protocol::appendFrame(out, static_cast<FrameType>(type), payload);
  return out;
}

TEST_F(Control, HelloStatusMarkAndDumpMatchTheRecording) {
  startJvm();
  Client client;
  protocol_json hello;
  connect(client, hello);
  EXPECT_EQ(hello.value("version", 0), 3);
  EXPECT_EQ(hello.value("pid", 0), jvm_->pid());
  EXPECT_NE(hello.value("jvm", std::string()).find("VM"), std::string::npos) << hello.dump();

  protocol_json status = request(client, {{"cmd", "status"}});
  EXPECT_TRUE(status.value("recording", false));
  EXPECT_EQ(status["settings"].value("events", std::string()), "cpu");
  EXPECT_EQ(status["settings"].value("interval_ns", int64_t{0}), 5'000'000);
  EXPECT_EQ(status.value("file", std::string()), recording_);
  EXPECT_EQ(status.value("clients", 0), 1);

  // A client of version 1 is answered in version 1 and served: it ignores the fields v2 adds.
  {
    std::string token, error;
    Client old;
    connectWithoutHello(old, token);
    ASSERT_TRUE(old.sendRaw(frameBytes(1, R"({"cmd":"hello","id":1,"versions":[1],"token":")" + token + "\"}"), error));
    Frame frame;
    ASSERT_EQ(old.receive(frame, 10'000, error), Client::Received::Frame) << error;
    EXPECT_EQ(protocol_json::parse(frame.payload, nullptr, false).value("version", 0), 1) << frame.payload;
    EXPECT_EQ(request(old, {{"cmd", "status"}}).value("file", std::string()), recording_);
  }

  // The phase switch happens between the two marks: snapshot b must hold phaseB, not phaseA.
  const int64_t before = waitForSamples(client, 20);
  EXPECT_TRUE(request(client, {{"cmd", "mark"}, {"name", "b"}, {"kind", "begin"}}).value("ok", false));
  touch(switch_);
  ASSERT_TRUE(jvm_->waitForStdout("phase b", kWait));
  waitForSamples(client, before + 60);  // 300 ms of CPU in phaseB at 5 ms
  EXPECT_TRUE(request(client, {{"cmd", "mark"}, {"name", "b"}, {"kind", "end"}}).value("ok", false));
  EXPECT_TRUE(request(client, {{"cmd", "mark"}, {"name", "after"}}).value("ok", false));

  // dump -o through the command line: a file the same reader reads, marks included.
  const std::string dumped = file("dump.ssr");
  ProcessResult dump = run({STACKSCOPE_BIN, "connect", pid(), "dump", "-o", dumped, "--json"});
  ASSERT_EQ(dump.exit_code, 0) << dump.err << dump.out;
  EXPECT_TRUE(json::parse(dump.out).value("ok", false)) << dump.out;
  const std::vector<std::string> expected{"begin b", "end b", "point after"};
  EXPECT_EQ(markers(dumped), expected);
  json dumped_b = report(dumped, {"--snapshot", "b"});
  const double b_samples = dumped_b.at("samples").get<double>();
  EXPECT_GE(b_samples, 30);
  // Samples between the begin mark and the switch (the workload looks for the file every
  // 5 ms of CPU) may be phaseA's: a few, at most 10 %.
  EXPECT_GE(methodTotal(dumped_b, kB), 0.9 * b_samples) << dumped_b.dump(1);
  EXPECT_LE(methodTotal(dumped_b, kA), 0.1 * b_samples) << dumped_b.dump(1);

  finishJvm();
  // The finished recording has the same marks, and the same snapshot b as the dump had
  // (the phase ended before the dump; a sample or two may still have been in flight).
  EXPECT_EQ(markers(recording_), expected);
  json final_b = report(recording_, {"--snapshot", "b"});
  EXPECT_NEAR(final_b.at("samples").get<double>(), b_samples, 2);
  json whole = report(recording_);
  EXPECT_GT(methodTotal(whole, kA), 0);
}

TEST_F(Control, BadFramesAndWrongTokensAreRefusedAndTheJvmRecordsOn) {
  startJvm();
  Client watcher;
  protocol_json hello;
  connect(watcher, hello);
  const int64_t before = waitForSamples(watcher, 10);

  const std::string status_request = frameBytes(1, R"({"cmd":"status","id":1})");
  // Before hello, and hello with a wrong token.
  EXPECT_EQ(refusal(status_request, false), "unauthenticated");
  EXPECT_EQ(refusal(frameBytes(1, R"({"cmd":"hello","token":")" + std::string(64, '0') + R"(","versions":[1]})"), false),
            "unauthenticated");
  EXPECT_EQ(refusal(frameBytes(1, R"({"cmd":"hello","versions":[1]})"), false), "unauthenticated");
  // Oversized: refused from the header alone, whoever sends it.
  EXPECT_EQ(refusal(std::string("\xff\xff\xff\x7f\x01", 5), false), "oversized");
  EXPECT_EQ(refusal(std::string("\x01\x00\x01\x00\x01", 5) + std::string(70'000, '{'), true), "oversized");
  // Unknown frame type; a type only the agent sends; malformed JSON; a request without cmd.
  EXPECT_EQ(refusal(frameBytes(9, "{}"), true), "bad_frame");
  EXPECT_EQ(refusal(frameBytes(2, R"({"ok":true})"), true), "bad_frame");
  EXPECT_EQ(refusal(frameBytes(1, R"({"cmd":"status",)"), true), "malformed");
  EXPECT_EQ(refusal(frameBytes(1, R"({"id":3})"), true), "malformed");
  EXPECT_EQ(refusal(frameBytes(1, "\xff\xfe\x00garbage"), false), "malformed");
  // Nothing at all: refused once the time for hello is over (5 s), not kept forever.
  EXPECT_EQ(refusal("", false), "unauthenticated");
  // Not a frame at all: an HTTP request reads as a huge length.
  EXPECT_EQ(refusal("GET / HTTP/1.1\r\nHost: x\r\n\r\n", false), "oversized");

  // An unknown command or a bad argument is a refused reply, not a closed connection.
  protocol_json reply;
  std::string error;
  EXPECT_FALSE(watcher.request({{"cmd", "reboot"}}, reply, error));
  EXPECT_EQ(reply.value("error", std::string()), "unknown_command");
  EXPECT_FALSE(watcher.request({{"cmd", "mark"}, {"name", 42}}, reply, error));
  EXPECT_EQ(reply.value("error", std::string()), "bad_argument");
  EXPECT_FALSE(watcher.request({{"cmd", "mark"}, {"name", "x"}, {"kind", "middle"}}, reply, error));
  EXPECT_EQ(reply.value("error", std::string()), "bad_argument");

  // The watcher, connected all along, sees the recording go on.
  EXPECT_GE(waitForSamples(watcher, before + 20), before + 20);
  protocol_json status = request(watcher, {{"cmd", "status"}});
  EXPECT_TRUE(status.value("recording", false));
  EXPECT_EQ(status.value("clients", 0), 1) << "refused connections are closed";
  finishJvm();
  EXPECT_GE(report(recording_).at("samples").get<double>(), before + 20) << "samples after the bad frames";
}

TEST_F(Control, TwoClientsAndAStreamingClientKilledMidStream) {
  startJvm();
  // A `connect … stream` process, killed once the stream flows.
  const std::string killed_stream = file("killed.ssr");
  auto streamer = std::make_unique<Child>(
      std::vector<std::string>{STACKSCOPE_BIN, "connect", pid(), "stream", "-o", killed_stream});
  Client client;
  protocol_json hello;
  connect(client, hello);
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while ((!std::filesystem::exists(killed_stream) || std::filesystem::file_size(killed_stream) == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(std::filesystem::exists(killed_stream) && std::filesystem::file_size(killed_stream) > 0);
  EXPECT_EQ(request(client, {{"cmd", "status"}}).value("clients", 0), 2);
  kill(streamer->pid(), SIGKILL);
  streamer->wait(kWait);

  // A second streaming client, to the end of the recording.
  Client stream_client;
  connect(stream_client, hello);
  std::string streamed;
  bool ended = false;
  stream_client.setStreamSink([&](std::string_view bytes) {
    ended = ended || bytes.empty();
    streamed.append(bytes);
  });
  EXPECT_TRUE(request(stream_client, {{"cmd", "stream"}}).value("ok", false));

  // The recording went on without the killed client; it is counted out.
  const int64_t samples = waitForSamples(client, 0);
  EXPECT_GE(waitForSamples(client, samples + 20), samples + 20);
  int64_t clients = 0;
  for (auto until = std::chrono::steady_clock::now() + kWait; std::chrono::steady_clock::now() < until;) {
    clients = request(client, {{"cmd", "status"}}).value("clients", 0);
    if (clients == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(clients, 2);
  EXPECT_TRUE(request(client, {{"cmd", "mark"}, {"name", "seen"}}).value("ok", false));
  client.close();

  finishJvm();
  std::string error;
  while (!ended) {
    Frame frame;
    const Client::Received got = stream_client.receive(frame, 10'000, error);
    ASSERT_EQ(got, Client::Received::Frame) << "the stream ended without its end frame: " << error;
    if (frame.type != FrameType::Stream) continue;
    ended = frame.payload.empty();
    streamed.append(frame.payload);
  }
  // The stream is the recording, byte for byte, and reads as it does.
  EXPECT_EQ(streamed.size(), std::filesystem::file_size(recording_));
  EXPECT_TRUE(streamed == readAll(recording_));
  const std::string streamed_path = file("streamed.ssr");
  std::ofstream(streamed_path, std::ios::binary) << streamed;
  EXPECT_EQ(markers(streamed_path), std::vector<std::string>{"point seen"});
  EXPECT_EQ(report(streamed_path).at("samples"), report(recording_).at("samples"));
  // The killed client's part is a readable prefix (complete chunks, no index).
  ProcessResult info = run({STACKSCOPE_BIN, "info", killed_stream});
  EXPECT_EQ(info.exit_code, 0) << info.err;
}

TEST_F(Control, OneShotCommandsExitCodesAndDetach) {
  startJvm();
  ProcessResult status = run({STACKSCOPE_BIN, "connect", pid(), "status", "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(json::parse(status.out).value("recording", false)) << status.out;
  // The user's mistakes, and commands this agent refuses, exit 1 with one line.
  for (std::vector<std::string> args : {std::vector<std::string>{"mark"}, {"bogus"}, {"dump", "-x"}, {"start", "event=cpu"}}) {
    std::vector<std::string> argv{STACKSCOPE_BIN, "connect", pid()};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessResult r = run(argv);
    EXPECT_EQ(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("stackscope: error: "), std::string::npos) << r.err;
  }
  ProcessResult nobody = run({STACKSCOPE_BIN, "connect", "999999999", "status"});
  EXPECT_EQ(nobody.exit_code, 1);
  EXPECT_NE(nobody.err.find("no process"), std::string::npos) << nobody.err;

  // detach: the recording is finished there and then, the control files go, the JVM runs on.
  ProcessResult detach = run({STACKSCOPE_BIN, "connect", pid(), "detach"});
  ASSERT_EQ(detach.exit_code, 0) << detach.err;
  const std::string address_file = stackscope::protocol::addressFilePath("/tmp", jvm_->pid());
  for (auto until = std::chrono::steady_clock::now() + kWait;
       std::filesystem::exists(address_file) && std::chrono::steady_clock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_FALSE(std::filesystem::exists(address_file));
  ProcessResult after = run({STACKSCOPE_BIN, "connect", pid(), "status"});
  EXPECT_EQ(after.exit_code, 1);
  ProcessResult info = run({STACKSCOPE_BIN, "info", recording_, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const std::string size_at_detach = std::to_string(std::filesystem::file_size(recording_));
  finishJvm();  // still alive, and it ends its work normally
  EXPECT_EQ(std::to_string(std::filesystem::file_size(recording_)), size_at_detach) << "written after detach";
  EXPECT_GT(report(recording_).at("samples").get<double>(), 0);
}

TEST_F(Control, UnixSocketForTheJvmsUserOnly) {
  const std::string socket = file("control.sock");
  startJvm("unix:" + socket);
  struct stat st {};
  ASSERT_EQ(stat(socket.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // By address: the token comes from the control file that names it.
  ProcessResult status = run({STACKSCOPE_BIN, "connect", "unix:" + socket, "status", "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(json::parse(status.out).value("control", ""), "unix:" + socket) << status.out;
  ProcessResult wrong = run({STACKSCOPE_BIN, "connect", "unix:" + socket, "--token", std::string(64, 'f'), "status"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("unauthenticated"), std::string::npos) << wrong.err;
  finishJvm();
  EXPECT_FALSE(std::filesystem::exists(socket)) << "the socket is removed at exit";
}

}  // namespace
}  // namespace it

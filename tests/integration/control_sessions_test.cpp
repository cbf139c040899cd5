// Sessions driven over the control server (docs/protocol.md), on real JVMs over real sockets
// on 127.0.0.1: a recording started over control in a JVM whose agent records nothing yet
// shows the workload's known split; a filter changed at run time changes which threads'
// samples (annotations) and which objects (the alloc trace's classes) the recording holds; `stackscope top` names the hottest methods of a running
// recording; `stackscope attach` drives an agent whose server already listens.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "control_fixture.h"
#include "native/jvm_attach.h"
#include "protocol/client.h"
#include "protocol/discovery.h"

namespace it {
namespace {

constexpr auto kWait = kControlWait;
const std::string kThreeWay = kWorkloads + "ThreeWay.";

using ControlSessions = ControlTest;

// ThreeWay's 50/30/20 split by the methods' totals, within 10 points (as Attach's test).
void expectThreeWaySplit(const json& methods) {
  double total = 0;
  std::map<std::string, double> seen;
  for (const char* name : {"alpha", "beta", "gamma"}) {
    seen[name] = methodTotal(methods, kThreeWay + name);
    total += seen[name];
  }
  ASSERT_GE(total, 40) << "too few samples to judge the split: " << methods.dump(1).substr(0, 2000);
  EXPECT_NEAR(seen["alpha"] / total, 0.5, 0.10);
  EXPECT_NEAR(seen["beta"] / total, 0.3, 0.10);
  EXPECT_NEAR(seen["gamma"] / total, 0.2, 0.10);
}

TEST_F(ControlSessions, StartOverControlInAJvmThatRecordsNothingShowsTheSplit) {
  // control= alone: the agent listens and records nothing until a start.
  Child jvm(javaCommand("AttachTarget", {"8000"}, {"-agentpath:" + agentPath() + "=control=0"}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  connect(jvm.pid());
  EXPECT_FALSE(request({{"cmd", "status"}}).value("recording", true));

  // start with attach's options, through the command line; stop; and a second session after it.
  const std::string first = file("first.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "cpu", "-i", "5ms", "-o", first});
  const protocol_json status = request({{"cmd", "status"}});
  EXPECT_TRUE(status.value("recording", false));
  EXPECT_EQ(status.at("settings").value("interval_ns", int64_t{0}), 5'000'000);
  waitForMoreSamples(150);
  connectCommand(jvm.pid(), {"stop"});
  EXPECT_FALSE(request({{"cmd", "status"}}).value("recording", true));
  const std::string second = file("second.ssr");
  EXPECT_TRUE(request({{"cmd", "start"}, {"options", "event=wall,interval=20ms,file=" + second}}).value("ok", false));
  waitForMoreSamples(10);
  EXPECT_TRUE(request({{"cmd", "stop"}}).value("ok", false));

  json methods = report(first);
  EXPECT_EQ(methods.at("finished"), true);
  expectThreeWaySplit(methods);
  json wall = report(second);
  EXPECT_EQ(wall.at("mode"), "wall");
  EXPECT_GT(wall.at("samples").get<double>(), 0);

  // detach: the JVM finishes its work with its usual output.
  EXPECT_TRUE(request({{"cmd", "detach"}}).value("ok", false));
  ProcessResult finished = jvm.wait(kWait * 2);
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_NE(finished.out.find("done"), std::string::npos);
}

TEST_F(ControlSessions, AFilterChangedAtRunTimeChangesWhichThreadsAreSampled) {
  // Two workers annotated as users u1 and u2 burn CPU all along; the filter passes only u1
  // for a while, then only u2. Each stretch is bounded by markers, read back as snapshots.
  const std::string path = file("filtered.ssr");
  Child jvm(apiJavaCommand("AnnotatedUsers", {"20000"},
                           {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,control=0,file=" + path}));
  connect(jvm.pid());
  waitForMoreSamples(20);
  EXPECT_EQ(request({{"cmd", "status"}}).value("filter", "?"), "");
  EXPECT_FALSE(request({{"cmd", "status"}}).contains("classes")) << "no alloc trace";
  for (const char* user : {"u1", "u2"}) {
    connectCommand(jvm.pid(), {"filter", std::string("user:") + user});
    // status shows the filter in force, in the command's syntax.
    EXPECT_EQ(request({{"cmd", "status"}}).value("filter", "?"), std::string("user:") + user);
    EXPECT_TRUE(request({{"cmd", "mark"}, {"name", std::string("only-") + user}, {"kind", "begin"}}).value("ok", false));
    waitForMoreSamples(60);
    EXPECT_TRUE(request({{"cmd", "mark"}, {"name", std::string("only-") + user}, {"kind", "end"}}).value("ok", false));
  }
  // A malformed filter is refused and changes nothing; classes need the alloc trace.
  protocol_json reply;
  std::string error;
  EXPECT_FALSE(client_.request({{"cmd", "filter"}, {"filter", "nokey:x"}}, reply, error));
  EXPECT_EQ(reply.value("error", std::string()), "bad_argument") << reply.dump();
  EXPECT_FALSE(client_.request({{"cmd", "filter"}, {"classes", "java.*"}}, reply, error));
  EXPECT_EQ(reply.value("error", std::string()), "bad_argument") << reply.dump();
  EXPECT_EQ(request({{"cmd", "status"}}).value("filter", "?"), "user:u2") << "a refused filter changes nothing";
  // Cleared: both users again.
  connectCommand(jvm.pid(), {"filter", ""});
  const ProcessResult shown = connectCommand(jvm.pid(), {"status"});
  EXPECT_NE(shown.out.find("filter:        none (every thread)\n"), std::string::npos) << shown.out;
  EXPECT_TRUE(request({{"cmd", "mark"}, {"name", "both"}, {"kind", "begin"}}).value("ok", false));
  waitForMoreSamples(80);
  EXPECT_TRUE(request({{"cmd", "mark"}, {"name", "both"}, {"kind", "end"}}).value("ok", false));
  EXPECT_TRUE(request({{"cmd", "stop"}}).value("ok", false));

  // Within each stretch, the other user's samples: none (a sample caught in the instant of
  // the switch may land on the wrong side of the marker: 2 % of the stretch at most).
  for (const auto& [kept, left_out] : {std::pair{"u1", "u2"}, std::pair{"u2", "u1"}}) {
    json users = report(path, {"--snapshot", std::string("only-") + kept, "--view", "users"});
    const double in = groupSamples(users, "users", kept);
    EXPECT_GE(in, 40) << kept << ": " << users.dump(1);
    EXPECT_LE(groupSamples(users, "users", left_out), 0.02 * in) << users.dump(1);
  }
  json both = report(path, {"--snapshot", "both", "--view", "users"});
  EXPECT_GT(groupSamples(both, "users", "u1"), 10) << both.dump(1);
  EXPECT_GT(groupSamples(both, "users", "u2"), 10) << both.dump(1);
}

// The sampled allocations of one class in a classes view of the alloc events, 0 when absent.
double samplesOf(const json& view, const std::string& cls) {
  const json* row = find(view, "classes", "value", cls);
  return row ? row->at("samples").get<double>() : 0.0;
}

TEST_F(ControlSessions, AClassesFilterChangedAtRunTimeChangesWhichObjectsAreSampled) {
  // byte[] and Pair in equal bytes all along; the alloc trace keeps only byte[] for a while.
  const std::string path = file("allocs.ssr");
  const std::string stop = file("stop");
  Child jvm(javaCommand("AllocatingUntil", {stop},
                        {"-agentpath:" + agentPath() + "=event=alloc,alloc=64k,control=0,file=" + path}));
  ASSERT_TRUE(jvm.waitForStdout("allocating", kWait));
  connect(jvm.pid());
  EXPECT_EQ(request({{"cmd", "status"}}).value("classes", "?"), "");
  connectCommand(jvm.pid(), {"filter", "--classes", "byte[]"});
  EXPECT_EQ(request({{"cmd", "status"}}).value("classes", "?"), "byte[]");
  const ProcessResult shown = connectCommand(jvm.pid(), {"status"});
  EXPECT_NE(shown.out.find("classes:       byte[]\n"), std::string::npos) << shown.out;
  // Sampled by bytes allocated, hundreds of samples per second of the loop even on a busy
  // machine: a second holds plenty.
  for (const char* name : {"buffers", "both"}) {
    EXPECT_TRUE(request({{"cmd", "mark"}, {"name", name}, {"kind", "begin"}}).value("ok", false));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    EXPECT_TRUE(request({{"cmd", "mark"}, {"name", name}, {"kind", "end"}}).value("ok", false));
    if (std::string(name) == "buffers") connectCommand(jvm.pid(), {"filter", "--classes", ""});
  }
  EXPECT_TRUE(request({{"cmd", "stop"}}).value("ok", false));
  std::ofstream(stop) << "stop\n";

  // No Pair while only byte[] was wanted (2 % of the stretch: an allocation timed just before
  // the end marker but checked after the filter was cleared); equal bytes, and so about as
  // many samples of each, once cleared.
  const std::string pair = kWorkloads + "Allocations$Pair";
  const json buffers = report(path, {"--snapshot", "buffers", "--event", "alloc", "--view", "classes"});
  EXPECT_GE(samplesOf(buffers, "byte[]"), 20) << buffers.dump(1);
  EXPECT_LE(samplesOf(buffers, pair), 0.02 * samplesOf(buffers, "byte[]")) << buffers.dump(1);
  const json both = report(path, {"--snapshot", "both", "--event", "alloc", "--view", "classes"});
  const double both_buffers = samplesOf(both, "byte[]");
  EXPECT_GE(both_buffers, 20) << both.dump(1);
  EXPECT_NEAR(samplesOf(both, pair) / both_buffers, 1.0, 0.5) << both.dump(1);
}

// The samples of each part K of a dump to F (F-K, F for part 0), each file alone (`info`:
// `report F` would read the whole set).
double partsSamples(const std::string& first, int64_t from, int64_t to) {
  double sum = 0;
  for (int64_t k = from; k <= to; ++k) {
    const std::string part = k == 0 ? first : first.substr(0, first.size() - 4) + "-" + std::to_string(k) + ".ssr";
    sum += query({"info", part}).at("samples").get<double>();
  }
  return sum;
}

// A recording that rotates every second: status names the part being written and the set on
// disk (its bytes are the files' sizes), and `dump -o D` writes every part as the same part
// of D, which reads as the recording so far: at least the samples status counted before the
// dump, at most those it counted after, and each finished part byte for byte.
TEST_F(ControlSessions, StatusAndDumpOfARotatingRecordingCoverTheWholeSet) {
  const std::string path = file("rot.ssr");
  Child jvm(javaCommand("AttachTarget", {"20000"},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,rotate=1s,control=0,file=" + path}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  connect(jvm.pid());
  const protocol_json status = statusAtPart(3);
  const int64_t part = status.value("part", int64_t{0});
  ASSERT_GE(part, 3) << status.dump();
  EXPECT_EQ(status.value("file", std::string()), path);
  EXPECT_EQ(status.value("part_file", std::string()), file("rot-" + std::to_string(part) + ".ssr"));
  EXPECT_EQ(status.value("set_files", int64_t{0}), part + 1);
  EXPECT_EQ(status.value("set_first_part", int64_t{-1}), 0);
  // The finished parts are complete files: the set's bytes are their sizes and the current
  // part's complete chunks; none was deleted, so that is every byte written.
  uint64_t finished = std::filesystem::file_size(path);
  for (int64_t k = 1; k < part; ++k) finished += std::filesystem::file_size(file("rot-" + std::to_string(k) + ".ssr"));
  EXPECT_EQ(status.value("set_bytes", uint64_t{0}), finished + status.value("part_bytes", uint64_t{0})) << status.dump();
  EXPECT_EQ(status.value("bytes_written", uint64_t{0}), status.value("set_bytes", uint64_t{0}));
  const ProcessResult shown = connectCommand(jvm.pid(), {"status"});
  EXPECT_NE(shown.out.find("set:           " + path + ": part "), std::string::npos) << shown.out;

  // An earlier copy's part that this one does not write would be read with it: it goes.
  const std::string dumped = file("copy.ssr");
  std::ofstream(file("copy-99.ssr")) << "an earlier dump's part";
  const double before = request({{"cmd", "status"}}).value("samples", 0.0);
  const ProcessResult dump = connectCommand(jvm.pid(), {"dump", "-o", dumped, "--json"});
  const double after = request({{"cmd", "status"}}).value("samples", 0.0);
  const json reply = json::parse(dump.out);
  const int64_t last = reply.value("last_part", int64_t{-1});
  EXPECT_GE(last, part);
  EXPECT_EQ(reply.value("first_part", int64_t{-1}), 0);
  EXPECT_EQ(reply.value("files", int64_t{0}), last + 1);
  EXPECT_FALSE(std::filesystem::exists(file("copy-99.ssr")));
  EXPECT_EQ(readAll(dumped), readAll(path));
  for (int64_t k = 1; k < last; ++k)
    EXPECT_EQ(readAll(file("copy-" + std::to_string(k) + ".ssr")), readAll(file("rot-" + std::to_string(k) + ".ssr"))) << k;
  const json whole = report(dumped);
  EXPECT_GE(whole.at("samples").get<double>(), before);
  EXPECT_LE(whole.at("samples").get<double>(), after);
  EXPECT_EQ(whole.at("samples").get<double>(), partsSamples(dumped, 0, last));
  expectThreeWaySplit(whole);
}

// With maxfiles=3 status counts only the three parts left, and a dump copies those three: no
// D (part 0 is gone, and a D left from before would be read as the set's first file).
TEST_F(ControlSessions, DumpOfARotatingRecordingWithMaxFilesCopiesThePartsLeft) {
  const std::string path = file("kept.ssr");
  Child jvm(javaCommand("AttachTarget", {"20000"},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,rotate=1s,maxfiles=3,control=0,file=" +
                         path}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  connect(jvm.pid());
  const protocol_json status = statusAtPart(4);
  const int64_t part = status.value("part", int64_t{0});
  ASSERT_GE(part, 4) << status.dump();
  EXPECT_EQ(status.value("set_files", int64_t{0}), 3) << status.dump();
  EXPECT_EQ(status.value("set_first_part", int64_t{-1}), part - 2) << status.dump();
  EXPECT_GT(status.value("bytes_written", uint64_t{0}), status.value("set_bytes", uint64_t{0})) << "parts were deleted";

  const std::string dumped = file("copy.ssr");
  std::ofstream(dumped) << "an earlier dump's first file";
  const json reply = json::parse(connectCommand(jvm.pid(), {"dump", "-o", dumped, "--json"}).out);
  const int64_t first = reply.value("first_part", int64_t{-1}), last = reply.value("last_part", int64_t{-1});
  EXPECT_GE(first, part - 2);
  EXPECT_EQ(last, first + 2);
  EXPECT_EQ(reply.value("files", int64_t{0}), 3);
  EXPECT_FALSE(std::filesystem::exists(dumped));
  const json whole = report(dumped);
  EXPECT_EQ(whole.at("samples").get<double>(), partsSamples(dumped, first, last));
  expectThreeWaySplit(whole);
}

// `top PID --json` for `iterations` refreshes of a second over the last `window`: one object each.
std::vector<json> topRefreshes(pid_t pid, int iterations, const std::string& window = "10s") {
  ProcessResult top = run({STACKSCOPE_BIN, "top", std::to_string(pid), "--json", "--iterations", std::to_string(iterations),
                           "--interval", "1s", "--window", window, "--top", "0"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  std::istringstream lines(top.out);
  std::vector<json> refreshes;
  for (std::string line; std::getline(lines, line);) refreshes.push_back(json::parse(line));
  EXPECT_EQ(refreshes.size(), static_cast<size_t>(iterations)) << top.out;
  return refreshes;
}

TEST_F(ControlSessions, TopJsonNamesTheHottestMethods) {
  Child jvm(javaCommand("AttachTarget", {"20000"},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,control=0,file=" + file("top.ssr")}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  const std::vector<json> refreshes = topRefreshes(jvm.pid(), 2);
  ASSERT_EQ(refreshes.size(), 2u);
  const json& last = refreshes.back();
  EXPECT_EQ(last.at("iteration"), 2);
  EXPECT_EQ(last.at("recording"), true);
  EXPECT_GT(last.at("samples_per_second").get<double>(), 0);
  EXPECT_TRUE(last.contains("heap_used_bytes")) << "no status report in the window";
  // The hottest by self time is the work alpha does (Cpu.mix, called by alpha only), and the
  // three methods' totals split as they burn.
  ASSERT_FALSE(last.at("methods").empty());
  EXPECT_EQ(last.at("methods")[0].at("method"), kWorkloads + "Cpu.mix") << last.dump(1).substr(0, 2000);
  expectThreeWaySplit(last);
}

// top on a recording that rotates every 1.5 s (chunks every 200 ms): each stream follows one
// file, and top asks for the next file's as one ends, so every refresh over the last 2 s still
// shows the work (a stream stuck in the first file would leave the later windows empty).
TEST_F(ControlSessions, TopFollowsARotatingRecording) {
  Child jvm(javaCommand("AttachTarget", {"20000"},
                        {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,status=200ms,rotate=1500ms,control=0,file=" +
                         file("rot.ssr")}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  const std::vector<json> refreshes = topRefreshes(jvm.pid(), 5, "2s");
  ASSERT_EQ(refreshes.size(), 5u);
  for (const json& refresh : refreshes) {
    EXPECT_EQ(refresh.at("recording"), true);
    ASSERT_FALSE(refresh.at("methods").empty()) << refresh.dump(1).substr(0, 1000);
  }
  EXPECT_EQ(refreshes.back().at("methods")[0].at("method"), kWorkloads + "Cpu.mix") << refreshes.back().dump(1).substr(0, 2000);
  EXPECT_TRUE(std::filesystem::exists(file("rot-2.ssr"))) << "the recording rotated at least twice";
}

// top on a JVM started without the agent: it loads one as attach does, records for the view,
// and at the end stops, detaches and removes its file; the JVM runs on with no agent thread.
TEST_F(ControlSessions, TopOnAJvmWithoutTheAgentLoadsItAndLeavesNothingBehind) {
  Child jvm(javaCommand("AttachTarget", {"20000"}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  const std::vector<json> refreshes = topRefreshes(jvm.pid(), 3);
  ASSERT_EQ(refreshes.size(), 3u);
  const json& last = refreshes.back();
  ASSERT_FALSE(last.at("methods").empty()) << last.dump(1).substr(0, 2000);
  // alpha's time is Cpu.mix's. Code compiled before the attach has no debug info between
  // safepoints, so a sample in mix's loop may land on the inlined Cpu.threadNs it calls (a CI
  // run: 47 % self there): mix's total holds both, its self need not.
  EXPECT_NEAR(methodTotal(last, kWorkloads + "Cpu.mix") / methodTotal(last, kThreeWay + "alpha"), 1.0, 0.05)
      << last.dump(1).substr(0, 2000);
  expectThreeWaySplit(last);
  const stackscope::native::AttachResult dump = stackscope::native::attachCommand(jvm.pid(), "threaddump", {}, 10'000);
  ASSERT_EQ(dump.error, stackscope::native::AttachError::None) << dump.message;
  EXPECT_EQ(dump.reply.find("\"stackscope-"), std::string::npos) << dump.reply;
  EXPECT_NE(dump.reply.find("\"main\""), std::string::npos) << "the dump is the real list";
  const std::string prefix = "stackscope-top-" + std::to_string(jvm.pid()) + "-";
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_NE(entry.path().filename().string().rfind(prefix, 0), 0u) << entry.path() << " left behind";
}

// top whose output's reader goes away (`top --json | head -c 100`): the next refresh's write
// fails, and top ends as at Ctrl-C, detaching the agent it loaded and removing its file. Before,
// SIGPIPE killed it and the JVM went on recording into the temporary file, and refused the
// next attach ("a recording is already running"). SIGTERM ends it the same way.
TEST_F(ControlSessions, TopWhoseReaderGoesAwayOrThatIsTerminatedLeavesNothingBehind) {
  Child jvm(javaCommand("AttachTarget", {"20000"}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  const std::string top = std::string(STACKSCOPE_BIN) + " top " + std::to_string(jvm.pid()) + " --interval 1s";
  ProcessResult piped = run({"/bin/sh", "-c", top + " --json --iterations 20 | head -c 100"});
  EXPECT_EQ(piped.out.size(), 100u) << piped.err;
  ProcessResult terminated = run({"/bin/sh", "-c", "timeout --preserve-status -s TERM 4 " + top + " > /dev/null; echo $?"});
  EXPECT_EQ(terminated.out, "0\n") << "top ended cleanly on SIGTERM: " << terminated.err;
  const stackscope::native::AttachResult dump = stackscope::native::attachCommand(jvm.pid(), "threaddump", {}, 10'000);
  ASSERT_EQ(dump.error, stackscope::native::AttachError::None) << dump.message;
  EXPECT_EQ(dump.reply.find("\"stackscope-"), std::string::npos) << "an agent thread is left";
  const std::string prefix = "stackscope-top-" + std::to_string(jvm.pid()) + "-";
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    EXPECT_NE(entry.path().filename().string().rfind(prefix, 0), 0u) << entry.path() << " left behind";
  ProcessResult attached = run({STACKSCOPE_BIN, "attach", std::to_string(jvm.pid()), "-e", "cpu", "--duration", "1s",
                                "-o", file("after-top.ssr")});
  EXPECT_EQ(attached.exit_code, 0) << attached.err;
}

// A JVM that records since its start, with no control server: attach and top load the agent's
// server to reach it. attach is refused (one recording at a time) and says where the recording
// goes; top shows that recording. Neither detaches the agent, which would end it: each closes
// the server it opened (`close`), and the recording goes on. A later load opens a server again,
// and a detach then frees the closed ones too: no agent thread is left, the file is finished.
TEST_F(ControlSessions, AttachAndTopOnAJvmRecordingSinceItsStartCloseOnlyTheirServer) {
  const std::string path = file("startup.ssr");
  Child jvm(javaCommand("AttachTarget", {"20000"}, {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,file=" + path}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  const std::string address = "/tmp/stackscope-" + std::to_string(jvm.pid()) + ".address";
  const std::string other = file("attached.ssr");
  ProcessResult attached =
      run({STACKSCOPE_BIN, "attach", std::to_string(jvm.pid()), "-e", "cpu", "--duration", "1s", "-o", other});
  EXPECT_EQ(attached.exit_code, 1) << attached.err;
  EXPECT_NE(attached.err.find("already records into " + path), std::string::npos) << attached.err;
  EXPECT_NE(attached.err.find("is closed again"), std::string::npos) << attached.err;
  EXPECT_FALSE(std::filesystem::exists(other));
  EXPECT_FALSE(std::filesystem::exists(address)) << "the server attach opened is closed";

  const std::vector<json> refreshes = topRefreshes(jvm.pid(), 2);
  ASSERT_EQ(refreshes.size(), 2u);
  ASSERT_FALSE(refreshes.back().at("methods").empty()) << refreshes.back().dump(1).substr(0, 2000);
  EXPECT_EQ(refreshes.back().at("methods")[0].at("method"), kWorkloads + "Cpu.mix");
  EXPECT_FALSE(std::filesystem::exists(address)) << "the server top opened is closed";

  // The recording goes on: its file grows (a chunk reaches it every second).
  const auto size = std::filesystem::file_size(path);
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::filesystem::file_size(path) == size && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_GT(std::filesystem::file_size(path), size);

  // A third server, through the attach mechanism as attach loads it; then a detach.
  const stackscope::native::AttachResult loaded =
      stackscope::native::loadAgent(jvm.pid(), agentPath(), "control=127.0.0.1:0", 10'000);
  ASSERT_EQ(loaded.error, stackscope::native::AttachError::None) << loaded.message;
  connect(jvm.pid());
  protocol_json status = request({{"cmd", "status"}});
  EXPECT_TRUE(status.value("recording", false)) << status.dump();
  EXPECT_EQ(status.value("file", std::string()), path);
  EXPECT_TRUE(request({{"cmd", "detach"}}).value("ok", false));
  stackscope::protocol::Frame frame;
  std::string error;
  EXPECT_EQ(client_.receive(frame, 10'000, error), Client::Received::Closed) << error;
  const stackscope::native::AttachResult dump = stackscope::native::attachCommand(jvm.pid(), "threaddump", {}, 10'000);
  ASSERT_EQ(dump.error, stackscope::native::AttachError::None) << dump.message;
  EXPECT_EQ(dump.reply.find("\"stackscope-"), std::string::npos) << dump.reply;
  const json recorded = report(path);
  EXPECT_EQ(recorded.at("finished"), true);
  EXPECT_EQ(recorded.at("methods")[0].at("method"), kWorkloads + "Cpu.mix");
}

TEST_F(ControlSessions, AttachDrivesAnAgentWhoseServerListensAndLeavesItListening) {
  Child jvm(javaCommand("AttachTarget", {"20000"}, {"-agentpath:" + agentPath() + "=control=0"}));
  ASSERT_TRUE(jvm.waitForStdout("ready", kWait));
  connect(jvm.pid());
  const std::string path = file("attached.ssr");
  ProcessResult attached =
      run({STACKSCOPE_BIN, "attach", std::to_string(jvm.pid()), "-e", "cpu", "-i", "5ms", "--duration", "2s", "-o", path});
  ASSERT_EQ(attached.exit_code, 0) << attached.err;
  EXPECT_NE(attached.err.find("left open"), std::string::npos) << attached.err;
  expectThreeWaySplit(report(path));
  // The server found through its control files still serves, with no recording running.
  protocol_json status = request({{"cmd", "status"}});
  EXPECT_TRUE(status.value("ok", false));
  EXPECT_FALSE(status.value("recording", true));
}

}  // namespace
}  // namespace it

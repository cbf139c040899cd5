// The control command `histo` (docs/protocol.md): a class histogram taken at once in a running
// recording started without histo=, over real sockets on 127.0.0.1. HeldObjects holds exactly
// 1000 Held and 200 Released objects during its first phase, so the counts are exact.
#include "control_fixture.h"

namespace it {
namespace {

using ControlHistogram = ControlTest;

TEST_F(ControlHistogram, HistoTakesAnExactHistogramNowInARecordingWithoutHisto) {
  // control= alone; phase 1 lasts a minute, far longer than the test needs.
  Child jvm(javaCommand("HeldObjects", {"60000"}, {"-agentpath:" + agentPath() + "=control=0"}));
  ASSERT_TRUE(jvm.waitForStdout("truth phase1.released", kControlWait));
  connect(jvm.pid());

  // Nothing records yet: refused, over the protocol and on the command line.
  protocol_json idle;
  std::string error;
  EXPECT_FALSE(client_.request({{"cmd", "histo"}}, idle, error)) << idle.dump();
  EXPECT_EQ(idle.value("error", std::string()), "unavailable") << idle.dump() << error;
  const ProcessResult refused = run({STACKSCOPE_BIN, "connect", std::to_string(jvm.pid()), "histo"});
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_NE(refused.err.find("not recording"), std::string::npos) << refused.err;

  const std::string path = file("histo.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "cpu", "-o", path});
  const ProcessResult said = connectCommand(jvm.pid(), {"histo"});
  EXPECT_NE(said.out.find("class histogram at "), std::string::npos) << said.out;
  const protocol_json reply = request({{"cmd", "histo"}});
  ASSERT_TRUE(reply.value("ok", false)) << reply.dump();
  EXPECT_GE(reply.value("instances", uint64_t{0}), 1200u) << reply.dump();
  EXPECT_GT(reply.value("classes", uint64_t{0}), 2u) << reply.dump();
  EXPECT_GT(reply.value("bytes", uint64_t{0}), reply.value("instances", uint64_t{0})) << reply.dump();
  EXPECT_GE(reply.value("pause_ns", int64_t{-1}), 0) << reply.dump();
  const int64_t second_ns = reply.value("time_ns", int64_t{-1});
  EXPECT_GT(second_ns, 0) << reply.dump();
  connectCommand(jvm.pid(), {"stop"});

  // Two histograms, the commands', and none at the end: histo= was not given.
  EXPECT_EQ(query({"info", path}).at("records").value("class_histogram", 0u), 2u);
  const json view = report(path, {"--view", "histogram"});
  const json* held = find(view, "classes", "class", kWorkloads + "HeldObjects$Held");
  const json* released = find(view, "classes", "class", kWorkloads + "HeldObjects$Released");
  ASSERT_NE(held, nullptr) << view.dump(1).substr(0, 2000);
  ASSERT_NE(released, nullptr) << view.dump(1).substr(0, 2000);
  EXPECT_EQ(held->at("instances"), 1000) << view.dump(1).substr(0, 2000);
  EXPECT_EQ(released->at("instances"), 200) << view.dump(1).substr(0, 2000);
  ASSERT_EQ(view.at("histograms").size(), 2u) << view.dump(1).substr(0, 2000);
  EXPECT_EQ(view.at("histograms")[1].at("time_ns"), second_ns) << view.dump(1).substr(0, 2000);
}

}  // namespace
}  // namespace it

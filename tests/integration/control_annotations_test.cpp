// Annotations and filters over control. Across recordings of one JVM: The Java API sends a thread's annotation only
// when it changes, so a recording that begins after the thread annotated itself (a start
// after a stop over control, as a second attach does) learns it from what the agent
// remembered (agent/remembered_annotations.h). And the JVM's own threads of mixed mode, never
// annotated, under a filter set at run time as under one given at the start. Real JVMs, real
// sockets on 127.0.0.1.
#include <functional>

#include "control_fixture.h"

namespace it {
namespace {

using ControlAnnotations = ControlTest;

// A sample taken between the thread's adoption by the new recording and its remembered
// annotation's arrival (microseconds apart) is unannotated: 2 % of a worker's samples at most.
constexpr double kAnnotatedShare = 0.98;

// AnnotatedUsers' workers annotate themselves once (worker-u1 as u1, worker-u2 as u2) at
// their start, during the first recording, then only burn CPU. Three more recordings
// follow over control, each begun after a stop: without a filter, with --filter user:u1 in
// cpu mode, and the same in wall mode.
TEST_F(ControlAnnotations, ALaterRecordingKnowsTheAnnotationsThreadsGaveThemselvesBefore) {
  Child jvm(apiJavaCommand("AnnotatedUsers", {"30000"},
                           {"-agentpath:" + agentPath() + "=event=cpu,interval=5ms,control=0,file=" +
                            file("first.ssr")}));
  connect(jvm.pid());
  waitForMoreSamples(40);  // the workers run, annotated
  connectCommand(jvm.pid(), {"stop"});

  const std::string second = file("second.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "cpu", "-i", "5ms", "-o", second});
  waitForMoreSamples(150);
  connectCommand(jvm.pid(), {"stop"});
  const std::string third = file("third.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "cpu", "-i", "5ms", "--filter", "user:u1", "-o", third});
  waitForMoreSamples(100);
  connectCommand(jvm.pid(), {"stop"});
  const std::string fourth = file("fourth.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "wall", "-i", "10ms", "--filter", "user:u1", "-o", fourth});
  waitForMoreSamples(50);
  connectCommand(jvm.pid(), {"stop"});
  EXPECT_TRUE(request({{"cmd", "detach"}}).value("ok", false));

  // Without a filter: each worker's samples carry its own annotation.
  for (const auto& [thread, user] : {std::pair{"worker-u1", "u1"}, std::pair{"worker-u2", "u2"}}) {
    json users = report(second, {"--where", std::string("thread=") + thread, "--view", "users"});
    const double total = users.at("samples").get<double>();
    EXPECT_GE(total, 20) << thread << ": " << users.dump(1);
    EXPECT_GE(groupSamples(users, "users", user), kAnnotatedShare * total) << thread << ": " << users.dump(1);
  }
  // Under the filter, in both modes: worker-u1 is recorded as u1, worker-u2 not at all.
  for (const std::string& path : {third, fourth}) {
    json users = report(path, {"--view", "users"});
    EXPECT_GE(groupSamples(users, "users", "u1"), 20) << path << ": " << users.dump(1);
    EXPECT_EQ(groupSamples(users, "users", "u2"), 0) << path << ": " << users.dump(1);
    json threads = report(path, {"--where", "thread=worker-u2", "--view", "threads"});
    EXPECT_EQ(threads.at("samples").get<double>(), 0) << path << ": " << threads.dump(1);
  }
}

// The samples of the JVM's own threads (jvm:*) between the begin and end markers `name`.
double jvmThreadSamples(const std::string& path, const std::string& name) {
  const json threads = report(path, {"--snapshot", name, "--where", "thread=jvm:*", "--view", "threads"});
  return threads.at("samples").get<double>();
}

// GcHeavy spends a third or more of its CPU in the serial collector's VM Thread (MixedMode's
// tests), and nothing of it is annotated. Mixed mode, cpu: a filter set over control leaves
// the JVM's threads out from then on, as one given at the start does; clearing a filter given
// at the start brings them in. The stretches without samples last a second of wall time.
TEST_F(ControlAnnotations, AFilterSetAtRunTimeTreatsTheJvmThreadsAsOneGivenAtTheStart) {
  Child jvm(apiJavaCommand("GcHeavy", {"60000"}, {"-agentpath:" + agentPath() + "=control=0"}));
  connect(jvm.pid());
  auto markBetween = [&](const std::string& name, const std::function<void()>& meanwhile) {
    connectCommand(jvm.pid(), {"mark", name, "--begin"});
    meanwhile();
    connectCommand(jvm.pid(), {"mark", name, "--end"});
  };
  auto aSecond = [] { std::this_thread::sleep_for(std::chrono::seconds(1)); };

  const std::string open = file("open.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "cpu", "-i", "5ms", "-o", open});
  markBetween("open", [&] { waitForMoreSamples(200); });
  connectCommand(jvm.pid(), {"filter", "user:nobody"});
  markBetween("filtered", aSecond);
  connectCommand(jvm.pid(), {"stop"});

  const std::string closed = file("closed.ssr");
  connectCommand(jvm.pid(), {"start", "-e", "cpu", "-i", "5ms", "--filter", "user:nobody", "-o", closed});
  markBetween("at-start", aSecond);
  connectCommand(jvm.pid(), {"filter", ""});
  markBetween("cleared", [&] { waitForMoreSamples(200); });
  connectCommand(jvm.pid(), {"stop"});
  EXPECT_TRUE(request({{"cmd", "detach"}}).value("ok", false));

  EXPECT_GE(jvmThreadSamples(open, "open"), 20);
  EXPECT_EQ(jvmThreadSamples(open, "filtered"), 0);
  EXPECT_EQ(jvmThreadSamples(closed, "at-start"), 0);
  EXPECT_GE(jvmThreadSamples(closed, "cleared"), 20);
}

}  // namespace
}  // namespace it

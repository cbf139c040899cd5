// `stackscope attach` on running JVMs: a recording made by attaching for part of a run shows
// the known CPU split and the JVM finishes its work; fifty attach/detach cycles on one JVM
// leave no agent thread behind and its memory bounded; each error the front-end names.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "annotation_helpers.h"
#include "harness.h"
#include "native/jvm_attach.h"

namespace it {
namespace {

using namespace std::chrono_literals;

ProcessResult attach(pid_t pid, const std::vector<std::string>& options) {
  std::vector<std::string> argv = {STACKSCOPE_BIN, "attach", std::to_string(pid)};
  argv.insert(argv.end(), options.begin(), options.end());
  return run(argv, 60s);
}

// The JVM's own list of its threads (the attach mechanism's threaddump): no agent thread
// may be in it once the agent detached. Agent threads are named "stackscope-...".
std::string threadDump(pid_t pid) {
  const stackscope::native::AttachResult dump = stackscope::native::attachCommand(pid, "threaddump", {}, 10'000);
  EXPECT_EQ(dump.error, stackscope::native::AttachError::None) << dump.message;
  return dump.reply;
}

int64_t residentKb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

class Attach : public RecordingTest {
 protected:
  // The waits of an AttachedRounds workload (AttachedWaits, AttachedNatives) recorded in
  // `path`: every one on `lock`, the waiter's, in `enter`, at least the 20 ms hold. Returns
  // how many (0 when a check failed).
  double expectWaiterWaits(const std::string& path, const std::string& lock, const std::string& enter) {
    constexpr double kHoldNs = 20e6;
    const json locks = report(path, {"--view", "locks", "--top", "0"});
    const json* row = find(locks, "locks", "value", lock);
    EXPECT_NE(row, nullptr) << locks.dump(1).substr(0, 3000);
    if (!row) return 0;
    // 2 s of rounds of 20 ms and more: 40-60 on an idle machine; 10 leaves room for a loaded one.
    const double waits = row->at("events").get<double>();
    EXPECT_GE(waits, 10) << locks.dump(1);
    EXPECT_GE(row->at("time").get<double>() / waits, 0.95 * kHoldNs) << locks.dump(1);
    const json waiters = report(path, {"--view", "locks[" + lock + "]/threads"});
    EXPECT_EQ(waiters.at("threads").size(), 1u) << waiters.dump(1);
    if (!waiters.at("threads").empty()) EXPECT_EQ(waiters.at("threads")[0].at("name"), "waiter") << waiters.dump(1);
    const json lock_methods = report(path, {"--event", "lock", "--top", "0"});
    const json* in_enter = find(lock_methods, "methods", "method", enter);
    EXPECT_NE(in_enter, nullptr) << lock_methods.dump(1).substr(0, 3000);
    if (in_enter) EXPECT_EQ(in_enter->at("total"), row->at("time")) << lock_methods.dump(1).substr(0, 3000);
    return waits;
  }
};

TEST_F(Attach, TwoSecondsOfARunningJvmShowItsSplitAndTheJvmFinishes) {
  // 6 s of CPU: the attach window of 2 s falls well inside the run even on a busy machine.
  Child jvm(javaCommand("AttachTarget", {"6000"}));
  ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
  ProcessResult attached = attach(jvm.pid(), {"-e", "cpu", "-i", "5ms", "--duration", "2s", "-o", file("a.ssr")});
  ASSERT_EQ(attached.exit_code, 0) << attached.err;

  json methods = report(file("a.ssr"));
  EXPECT_EQ(methods.at("finished"), true);
  EXPECT_EQ(methods.at("warnings"), json::array()) << methods.at("warnings");
  double total = 0;
  std::map<std::string, double> seen;
  for (const char* name : {"alpha", "beta", "gamma"}) {
    const json* method = find(methods, "methods", "method", kWorkloads + "ThreeWay." + name);
    ASSERT_NE(method, nullptr) << name << " missing: " << methods.dump(1).substr(0, 2000);
    seen[name] = method->at("total").get<double>();
    total += seen[name];
  }
  // Whatever the machine's load, the window holds several 100 ms rounds of CPU; at 5 ms that
  // is dozens of samples. Each method's share of them within 10 points of 50/30/20: a
  // window cut in the middle of a round moves the shares by at most half a round's.
  ASSERT_GE(total, 40) << "too few samples to judge the split";
  EXPECT_NEAR(seen["alpha"] / total, 0.5, 0.10);
  EXPECT_NEAR(seen["beta"] / total, 0.3, 0.10);
  EXPECT_NEAR(seen["gamma"] / total, 0.2, 0.10);

  // The JVM runs on after the detach and finishes its work with its usual output.
  ProcessResult finished = jvm.wait(120s);
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_NE(finished.out.find("done"), std::string::npos);
  EXPECT_EQ(truth(finished.out).size(), 3u) << finished.out;
}

// A thread running before the attach whose work is in a JIT stub (Math.sin's intrinsic): its
// samples there step out of the stub to the Java caller, as in a recording made from the
// start. That needs the thread's stack bounds, read from the VM at the attach; before, only a
// thread that blocked told them, and one that never did lost 80 % of its samples (unknown Java
// state), with native frames or without. Tolerances: at most 2 % lost (0.5-0.9 % measured on
// JDK 25, a stub entered or left between the two guesses of its frame); IntrinsicLoop.work
// holds 90 % of the main thread's samples at least (99.5 % measured; the rest: the clock reads
// between rounds, the kernel); a stub frame is on top of half of them at least (about 80 %).
TEST_F(Attach, ThreadsRunningBeforeTheAttachStepOutOfStubs) {
  for (const std::string native : {"mixed", "--no-native"}) {
    SCOPED_TRACE(native);
    Child jvm(javaCommand("IntrinsicLoop", {"8000"}));
    ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
    const std::string path = file("stub" + native + ".ssr");
    std::vector<std::string> options = {"-e", "cpu", "-i", "2ms", "--duration", "2s", "-o", path};
    if (native != "mixed") options.push_back(native);
    ProcessResult attached = attach(jvm.pid(), options);
    ASSERT_EQ(attached.exit_code, 0) << attached.err;
    const json methods = report(path, {"--top", "0", "--where", "thread=main"});
    const double samples = methods.at("samples").get<double>();
    const double lost = methods.at("lost_total").get<double>();
    ASSERT_GE(samples + lost, 100) << "too few ticks to judge: " << methods.dump(1).substr(0, 2000);
    EXPECT_LE(lost, 0.02 * (samples + lost)) << methods.at("lost").dump();
    const json* work = find(methods, "methods", "method", kWorkloads + "IntrinsicLoop.work");
    ASSERT_NE(work, nullptr) << methods.dump(1).substr(0, 2000);
    EXPECT_GE(work->at("total").get<double>(), 0.9 * samples) << methods.dump(1).substr(0, 2000);
    double stub_self = 0;
    for (const json& m : methods.at("methods"))
      if (m.at("method").get<std::string>().rfind("[stub] ", 0) == 0) stub_self += m.at("self").get<double>();
    EXPECT_GE(stub_self, 0.5 * samples) << methods.dump(1).substr(0, 2000);
  }
}

// Threads running before the attach are Java threads under their Java names, even where
// their OS names cannot tell them apart (the first 15 bytes, "request-handler", are the
// same for all six): not the JVM's own `jvm:` threads, and each its own row.
TEST_F(Attach, ThreadsRunningBeforeTheAttachKeepTheirJavaNames) {
  constexpr int kThreads = 6;
  Child jvm(apiJavaCommand("PoolBurn", {"8000", std::to_string(kThreads)}));
  ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
  ProcessResult attached = attach(jvm.pid(), {"-e", "cpu", "-i", "5ms", "--duration", "2s", "-o", file("pool.ssr")});
  ASSERT_EQ(attached.exit_code, 0) << attached.err;

  const json threads = report(file("pool.ssr"), {"--view", "threads"});
  std::set<std::string> pool;
  for (const json& t : threads.at("threads")) {
    const std::string name = t.at("name");
    EXPECT_EQ(name.rfind("jvm:request", 0), std::string::npos) << threads.dump(1);
    if (name.rfind("request-handler-pool-thread-", 0) == 0 && t.at("samples").get<double>() > 0) pool.insert(name);
  }
  EXPECT_EQ(pool.size(), static_cast<size_t>(kThreads)) << threads.dump(1);
  // Their work is the application's: all of PoolBurn.work's samples stay with the JVM's
  // own threads left out.
  const json all = report(file("pool.ssr"), {"--top", "0"});
  const json app = report(file("pool.ssr"), {"--top", "0", "--where", "not thread=jvm:*"});
  const json* work_all = find(all, "methods", "method", kWorkloads + "PoolBurn.work");
  const json* work_app = find(app, "methods", "method", kWorkloads + "PoolBurn.work");
  ASSERT_NE(work_all, nullptr) << all.dump(1).substr(0, 2000);
  ASSERT_NE(work_app, nullptr) << app.dump(1).substr(0, 2000);
  EXPECT_EQ(work_app->at("total"), work_all->at("total"));
  EXPECT_EQ(jvm.wait(120s).exit_code, 0);
}

// The same pool with a filter at the attach: the threads annotate themselves per slice of work
// (as a server's workers per request), and that reaches the threads the agent adopted (cpu
// mode) or registered as foreign (wall mode), so the filter keeps the even threads (user u0)
// and leaves the odd ones (u1) and the unannotated main out. One JVM, attached twice: the
// Java API sends a thread's annotation only when it changes, so the second attach (wall)
// knows the unchanged ones only from what the agent remembered during the first.
TEST_F(Attach, AFilterReachesThreadsRunningBeforeTheAttach) {
  constexpr int kThreads = 4;
  Child jvm(apiJavaCommand("PoolBurn", {"16000", std::to_string(kThreads)}));
  ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
  for (const char* mode : {"cpu", "wall"}) {
    const std::string path = file(std::string(mode) + ".ssr");
    ProcessResult attached =
        attach(jvm.pid(), {"-e", mode, "-i", "5ms", "--filter", "user:u0", "--duration", "2s", "-o", path});
    ASSERT_EQ(attached.exit_code, 0) << mode << ": " << attached.err;
    const json threads = report(path, {"--view", "threads"});
    std::set<std::string> sampled;
    for (const json& t : threads.at("threads"))
      if (t.at("samples").get<double>() > 0) sampled.insert(t.at("name"));
    EXPECT_EQ(sampled, (std::set<std::string>{"request-handler-pool-thread-0", "request-handler-pool-thread-2"}))
        << mode << ": " << threads.dump(1);
    const json users = report(path, {"--view", "users"});
    ASSERT_EQ(users.at("users").size(), 1u) << mode << ": " << users.dump(1);
    EXPECT_EQ(users.at("users")[0].at("value"), "u0") << mode << ": " << users.dump(1);
  }
  EXPECT_EQ(jvm.wait(120s).exit_code, 0);
}

// The traces of an attached agent see the threads that ran before it: their callbacks find
// the thread by its id (agent/calling_thread.h), with the traces alone (threads registered as
// foreign) and beside cpu sampling (threads adopted). Before, the lock trace recorded no wait
// of such a thread and its sampled allocations had no thread. Truth by construction
// (AttachedWaits): every wait is the waiter's, in enter(), on the Gate, at least the 20 ms hold,
// the holder's lock; every allocation is the waiter's, in allocate().
TEST_F(Attach, TracesSeeTheThreadsThatRanBeforeTheAttach) {
  for (const std::string events : {"lock,alloc", "cpu,lock,alloc"}) {
    SCOPED_TRACE(events);
    Child jvm(javaCommand("AttachedWaits", {"6000", "20"}));
    ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
    std::string name = events;
    std::replace(name.begin(), name.end(), ',', '-');  // a comma cannot be in the agent's options
    const std::string path = file(name + ".ssr");
    ProcessResult attached = attach(jvm.pid(), {"-e", events, "--duration", "2s", "-o", path});
    ASSERT_EQ(attached.exit_code, 0) << attached.err;

    const double waits = expectWaiterWaits(path, kWorkloads + "AttachedWaits$Gate", kWorkloads + "AttachedWaits.enter");
    // Every wait names its owner, "holder", a thread that ran before the attach: found by its
    // Java id (HotSpot 24+'s owner word) or by its JavaThread* and stack as read at the attach
    // (before 24), among the foreign slots or, in cpu mode, the adopted ones
    // (monitor_owner_words.h). Before, only JDK 24+ without cpu named it (0 of 81-83 otherwise).
    const json owners = report(path, {"--view", "locks[" + kWorkloads + "AttachedWaits$Gate]/owners", "--metric", "count", "--top", "0"});
    const json* holder = find(owners, "owners", "value", "holder");
    ASSERT_NE(holder, nullptr) << owners.dump(1);
    EXPECT_EQ(holder->at("count").get<double>(), waits) << owners.dump(1);
    // The owner's stack too, where a look saw the wait (its budget: about 60 of these 2 s of
    // 20 ms waits; 58 of 87-88 measured): the waiter's monitor read from its JavaThread* as the
    // owner's was. Not in cpu mode, whose adopted threads no look sees.
    if (events == "lock,alloc") {
      ASSERT_EQ(holder->at("held_in").size(), 1u) << owners.dump(1);
      EXPECT_EQ(holder->at("held_in")[0].at("method"), kWorkloads + "AttachedWaits.hold") << owners.dump(1);
      EXPECT_GE(holder->at("held_in")[0].at("events").get<double>(), 10) << owners.dump(1);
    }

    // Allocations: 4 MiB a round, sampled about every 512 KiB: every one the waiter's.
    const json allocators = report(path, {"--event", "alloc", "--view", "threads"});
    ASSERT_FALSE(allocators.at("threads").empty()) << allocators.dump(1);
    const json* waiter = find(allocators, "threads", "name", "waiter");
    ASSERT_NE(waiter, nullptr) << allocators.dump(1);
    EXPECT_GE(waiter->at("samples").get<double>(), 10) << allocators.dump(1);
    for (const json& thread : allocators.at("threads")) {
      EXPECT_NE(thread.at("id"), 0) << "an allocation without its thread: " << allocators.dump(1);
    }
    // The JVM finishes its rounds after the detach.
    EXPECT_EQ(jvm.wait(120s).exit_code, 0);
  }
}

// After an attach the natives the traces wrap (Unsafe.park, Throwable.fillInStackTrace,
// Thread.start0) were bound long before: the agent binds them again (agent/bound_natives.h),
// from a boot-loader class's frame, so HotSpot logs nothing on the program's output. Before, an
// attached agent saw no park, no created exception and no thread start. Truth by construction
// (AttachedNatives): each round one park of the waiter in enter(), at least the 20 ms hold, on
// the ReentrantLock the holder owns; one Marker created in fail(); one child started in spawn().
TEST_F(Attach, NativesBoundBeforeTheAttachAreWrappedAgain) {
  Child jvm(javaCommand("AttachedNatives", {"6000", "20"}));
  ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
  const std::string path = file("natives.ssr");
  ProcessResult attached = attach(jvm.pid(), {"-e", "cpu,lock,exception", "--duration", "2s", "-o", path});
  ASSERT_EQ(attached.exit_code, 0) << attached.err;
  EXPECT_EQ(attached.err.find("warning"), std::string::npos) << attached.err;

  const double waits = expectWaiterWaits(path, "java.util.concurrent.locks.ReentrantLock$NonfairSync",
                                         kWorkloads + "AttachedNatives.enter");

  // One Marker a round: as many as parks, but for a round cut at either end of the recording.
  const json exceptions = report(path, {"--view", "exceptions", "--top", "0"});
  const json* marker = find(exceptions, "exceptions", "value", kWorkloads + "AttachedNatives$Marker");
  ASSERT_NE(marker, nullptr) << exceptions.dump(1);
  EXPECT_NEAR(marker->at("count").get<double>(), waits, 2) << exceptions.dump(1);
  const json created_in = report(path, {"--event", "exception", "--top", "0"});
  const json* fail = find(created_in, "methods", "method", kWorkloads + "AttachedNatives.fail");
  ASSERT_NE(fail, nullptr) << created_in.dump(1).substr(0, 3000);
  EXPECT_EQ(fail->at("total"), marker->at("count")) << created_in.dump(1).substr(0, 3000);

  // The children that took a sample hang below the waiter, started in spawn(): all but the one
  // that may have been running already when the agent came.
  const json summary = query({"summary", path});
  const json& tree = summary.at("threads").at("tree");
  int children = 0, started_in_spawn = 0;
  for (const json& thread : tree) {
    if (thread.at("thread") != "child") continue;
    ++children;
    started_in_spawn += thread.at("started_at") == kWorkloads + "AttachedNatives.spawn";
  }
  EXPECT_GE(started_in_spawn, 10) << tree.dump(1);
  EXPECT_GE(started_in_spawn, children - 1) << tree.dump(1);

  // The program's output is its own: no warning of the JVM's about natives registered again.
  const ProcessResult finished = jvm.wait(120s);
  EXPECT_EQ(finished.exit_code, 0) << finished.err;
  EXPECT_EQ(finished.out, "ready\ndone\n");
}

TEST_F(Attach, FiftyCyclesLeaveNoAgentThreadAndBoundedMemory) {
  Child jvm(javaCommand("Spinner"));
  ASSERT_TRUE(jvm.waitForStdout("spinning", 60s));
  constexpr int kCycles = 50;
  int64_t rss_after_warmup = 0;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    const std::string path = file("cycle.ssr");  // the same file each time: overwritten
    ProcessResult attached = attach(jvm.pid(), {"-e", "cpu", "-i", "1ms", "--duration", "200ms", "-o", path});
    ASSERT_EQ(attached.exit_code, 0) << "cycle " << cycle << ": " << attached.err;
    const std::string dump = threadDump(jvm.pid());
    ASSERT_EQ(dump.find("\"stackscope-"), std::string::npos) << "cycle " << cycle << ":\n" << dump;
    ASSERT_NE(dump.find("\"main\""), std::string::npos) << dump;  // the dump is the real list
    // Every tenth recording is read back: each cycle's file is complete.
    if (cycle % 10 == 9) {
      EXPECT_EQ(report(path).at("finished"), true) << "cycle " << cycle;
    }
    if (cycle == 9) rss_after_warmup = residentKb(jvm.pid());
  }
  // A session holds an 8 MB sample ring among the rest: had any cycle kept its memory, 40
  // cycles would add 320 MB. What the JVM and malloc keep on their own (JIT code, arenas of
  // the threads that came and went) was measured at 14-34 MB over 40 cycles: bound 64 MB.
  const int64_t growth_kb = residentKb(jvm.pid()) - rss_after_warmup;
  EXPECT_LT(growth_kb, 64 * 1024) << "resident memory grew by " << growth_kb << " kB over 40 cycles";
  EXPECT_EQ(::kill(jvm.pid(), 0), 0) << "the JVM died";
}

TEST_F(Attach, AttachingToAJvmThatHoldsTheAgentReusesIt) {
  Child jvm(javaCommand("Spinner"));
  ASSERT_TRUE(jvm.waitForStdout("spinning", 60s));
  for (const char* name : {"first.ssr", "second.ssr"}) {
    ProcessResult attached = attach(jvm.pid(), {"-e", "wall", "--duration", "300ms", "-o", file(name)});
    ASSERT_EQ(attached.exit_code, 0) << attached.err;
    EXPECT_GT(report(file(name)).at("samples").get<double>(), 0) << name;
  }
  std::ifstream maps("/proc/" + std::to_string(jvm.pid()) + "/maps");
  std::string text((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
  size_t mappings = 0;
  for (size_t at = text.find("libstackscope.so"); at != std::string::npos; at = text.find("libstackscope.so", at + 1))
    ++mappings;
  json list = query({"list"});
  bool listed = false;
  for (const json& entry : list.at("jvms")) {
    if (entry.at("pid") == jvm.pid()) {
      listed = true;
      EXPECT_EQ(entry.at("agent_loaded"), true);
      EXPECT_EQ(entry.at("main_class"), kWorkloads + "Spinner");
    }
  }
  EXPECT_TRUE(listed) << list.dump(1);
  // One copy of the library, mapped once (a handful of segments), not one per attach.
  EXPECT_GT(mappings, 0u);
  EXPECT_LE(mappings, 6u);
}

TEST_F(Attach, ErrorsAreNamed) {
  // No such process: a child that has been reaped.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  ProcessResult none = attach(gone, {"--duration", "1s"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no process with pid"), std::string::npos) << none.err;

  // Not a JVM.
  Child sleeper({"/bin/sleep", "30"});
  std::this_thread::sleep_for(100ms);
  ProcessResult not_jvm = attach(sleeper.pid(), {"--duration", "1s"});
  EXPECT_EQ(not_jvm.exit_code, 1);
  EXPECT_NE(not_jvm.err.find("is not a JVM"), std::string::npos) << not_jvm.err;

  // Attach disabled.
  Child closed(javaCommand("Spinner", {}, {"-XX:+DisableAttachMechanism"}));
  ASSERT_TRUE(closed.waitForStdout("spinning", 60s));
  ProcessResult disabled = attach(closed.pid(), {"--duration", "1s"});
  EXPECT_EQ(disabled.exit_code, 1);
  EXPECT_NE(disabled.err.find("-XX:+DisableAttachMechanism"), std::string::npos) << disabled.err;

  // A stopped JVM never opens its socket: the timeout, then it runs on.
  Child stopped(javaCommand("Spinner"));
  ASSERT_TRUE(stopped.waitForStdout("spinning", 60s));
  ::kill(stopped.pid(), SIGSTOP);
  ProcessResult timed_out = attach(stopped.pid(), {"--duration", "1s", "--timeout", "1s"});
  ::kill(stopped.pid(), SIGCONT);
  EXPECT_EQ(timed_out.exit_code, 1);
  EXPECT_NE(timed_out.err.find("did not open its attach socket"), std::string::npos) << timed_out.err;

  // A JVM of another user: stackscope run as nobody against this (root's) JVM. Only root can
  // start a process as another user; elsewhere the case cannot be set up.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run stackscope as another user";
  ProcessResult other = run({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", STACKSCOPE_BIN, "attach",
                             std::to_string(closed.pid()), "--duration", "1s", "-o", "/tmp/never.ssr"},
                            60s);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("runs as user root"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace it

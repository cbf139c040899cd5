// Status reports as a time series (report --view status) on real JVMs, with a known number of
// live threads that must read the same in cpu and wall mode; and a second SIGPROF user in
// the same JVM, which the recording must report instead of silently recording nothing.
#include <cstdlib>
#include <fstream>
#include <regex>

#include "harness.h"

namespace it {
namespace {

// How many "thread NAME" lines Sleeper printed: the live threads while it burns.
int printedThreads(const std::string& out) {
  int n = 0;
  for (size_t at = out.find("thread "); at != std::string::npos; at = out.find("thread ", at + 1))
    if (at == 0 || out[at - 1] == '\n') ++n;
  return n;
}

// The largest live thread count of the status reports: reached while Sleeper burns with its
// three idle threads up.
int maxLiveThreads(const json& status) {
  int max = 0;
  for (const json& r : status.at("reports")) max = std::max(max, r.at("live_threads").get<int>());
  return max;
}

class StatusSeries : public RecordingTest {};

TEST_F(StatusSeries, EveryReportIsListedWithUnitsAndLiveThreadsAgreeAcrossModes) {
  std::map<std::string, int> live;
  for (const std::string mode : {"cpu", "wall"}) {
    const std::string path = file(mode + ".ssr");
    ProcessResult rec = record({"-e", mode, "--status", "200ms"}, path, "Sleeper", {"2500"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const int truth = printedThreads(rec.out);
    ASSERT_GE(truth, 4) << rec.out;  // main, sleeper, waiter, blocked and the JVM's own

    const json status = report(path, {"--view", "status"});
    EXPECT_EQ(status.at("view"), "status");
    const json& reports = status.at("reports");
    // 2.5 s of burning at 200 ms: at least 10 reports (start-up adds more), every one listed.
    ASSERT_GE(reports.size(), 10u);
    EXPECT_EQ(status.at("status_reports").get<size_t>(), reports.size());
    EXPECT_EQ(query({"info", path}).at("status").at("count").get<size_t>(), reports.size());
    int64_t previous = -1;
    for (const json& r : reports) {
      EXPECT_GT(r.at("time_ns").get<int64_t>(), previous);
      previous = r.at("time_ns").get<int64_t>();
      EXPECT_GE(r.at("process_cpu_pct_of_machine").get<double>(), 0.0);
      EXPECT_LE(r.at("process_cpu_pct_of_machine").get<double>(), 100.0);
      EXPECT_GE(r.at("cpus").get<int>(), 1);
      EXPECT_LE(r.at("process_cpu_cores").get<double>(), r.at("cpus").get<double>());
      EXPECT_GE(r.at("heap_committed_bytes").get<uint64_t>(), r.at("heap_used_bytes").get<uint64_t>());
      EXPECT_GT(r.at("heap_used_bytes").get<uint64_t>(), 0u);
      EXPECT_GE(r.at("live_threads").get<int>(), 1);
    }
    // Most reports after the first have a machine load (the first has no earlier reading; the
    // one written at shutdown may follow the previous within one clock tick, with nothing to
    // compare: CI once saw the last one without a load).
    size_t with_load = 0;
    for (size_t i = 1; i < reports.size(); ++i) with_load += reports[i].at("machine_cpu_pct").is_number() ? 1 : 0;
    EXPECT_GE(2 * with_load, reports.size() - 1) << status.dump(1);
    // main burns 2.5 s of its CPU time between the first report and the last: the reports'
    // process CPU (cores over each report's interval) adds up to at least 80 % of it. CPU time,
    // not a share of the wall clock: on a loaded machine main may get well under half a core.
    double cpu_seconds = 0;
    for (size_t i = 1; i < reports.size(); ++i) {
      const double interval_s = static_cast<double>(reports[i].at("time_ns").get<int64_t>() -
                                                    reports[i - 1].at("time_ns").get<int64_t>()) / 1e9;
      cpu_seconds += reports[i].at("process_cpu_cores").get<double>() * interval_s;
    }
    EXPECT_GE(cpu_seconds, 0.8 * 2.5) << status.dump(1).substr(0, 3000);
    // Live threads: the JVM's own count (Thread.getAllStackTraces) within 1 (a JVM thread
    // such as the attach listener may come or go between the two counts).
    live[mode] = maxLiveThreads(status);
    EXPECT_NEAR(live[mode], truth, 1) << mode;
  }
  EXPECT_NEAR(live["cpu"], live["wall"], 1);
}

TEST_F(StatusSeries, TextSaysWhatThePercentagesAreOf) {
  const std::string path = file("t.ssr");
  ASSERT_EQ(record({"--status", "200ms"}, path, "Spinner", {"800"}).exit_code, 0);
  ProcessResult text = run({STACKSCOPE_BIN, "report", path, "--view", "status"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Process CPU: share of the whole machine ("), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Live threads"), std::string::npos);
  EXPECT_NE(text.out.find("Heap committed"), std::string::npos);
  // Status reports are process-wide: a filter is said not to apply, not silently ignored.
  ProcessResult filtered = run({STACKSCOPE_BIN, "report", path, "--view", "status", "--where", "thread=main"});
  EXPECT_EQ(filtered.exit_code, 0);
  EXPECT_NE(filtered.err.find("note: status reports are process-wide"), std::string::npos) << filtered.err;
}

// A tiny JVMTI agent that installs a SIGPROF handler of its own in Agent_OnLoad, as another
// profiler or a native library would. Compiled by the test with the system C compiler.
std::string buildForeignAgent(const std::string& dir) {
  const std::string source = dir + "/foreign_sigprof.c", library = dir + "/libforeign_sigprof.so";
  std::ofstream(source) << R"(
#include <signal.h>
#include <string.h>
static volatile sig_atomic_t hits;
static void onSigprof(int sig) { (void)sig; hits++; }
int Agent_OnLoad(void* vm, char* options, void* reserved) {
  (void)vm; (void)options; (void)reserved;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = onSigprof;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGPROF, &action, 0);
}
)";
  const std::string command = "cc -shared -fPIC -o '" + library + "' '" + source + "'";
  if (std::system(command.c_str()) != 0) return "";
  return library;
}

class ForeignSigprof : public RecordingTest {
 protected:
  ProcessResult runWithAgents(const std::vector<std::string>& agents) {
    return run(javaCommand("Spinner", {"3000"}, agents));
  }
  std::string ours(const std::string& path) { return "-agentpath:" + agentPath() + "=event=cpu,interval=10ms,status=500ms,file=" + path; }
};

TEST_F(ForeignSigprof, AHandlerInstalledBeforeUsIsReplacedAndSaid) {
  const std::string foreign = buildForeignAgent(file(""));
  ASSERT_FALSE(foreign.empty()) << "cannot compile the foreign agent";
  const std::string path = file("first.ssr");
  ProcessResult jvm = runWithAgents({"-agentpath:" + foreign, ours(path)});
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  EXPECT_NE(jvm.err.find("stackscope: warning: SIGPROF already had a handler"), std::string::npos) << jvm.err;
  const json methods = report(path);
  ASSERT_FALSE(methods.at("warnings").empty());
  EXPECT_NE(methods.at("warnings")[0].get<std::string>().find("SIGPROF already had a handler"), std::string::npos)
      << methods.at("warnings");
  // stackscope took the signal over, so it still samples: 3 s of CPU at 10 ms.
  EXPECT_GE(methods.at("samples").get<double>(), 100);
}

TEST_F(ForeignSigprof, AHandlerInstalledAfterUsIsNoticedAndTheSilenceSaid) {
  const std::string foreign = buildForeignAgent(file(""));
  ASSERT_FALSE(foreign.empty()) << "cannot compile the foreign agent";
  const std::string path = file("second.ssr");
  ProcessResult jvm = runWithAgents({ours(path), "-agentpath:" + foreign});
  ASSERT_EQ(jvm.exit_code, 0) << jvm.err;
  const json methods = report(path);
  const std::string warnings = methods.at("warnings").dump();
  EXPECT_NE(warnings.find("another handler replaced stackscope's SIGPROF handler"), std::string::npos) << warnings;
  // The timers' signals all went to the other handler: no sample, and that is said too.
  EXPECT_EQ(methods.at("samples").get<double>(), 0);
  EXPECT_NE(warnings.find("the CPU timers produced no sample"), std::string::npos) << warnings;
  EXPECT_NE(jvm.err.find("stackscope: warning: another handler replaced"), std::string::npos) << jvm.err;
}

}  // namespace
}  // namespace it

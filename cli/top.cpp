// `stackscope top PID|HOST:PORT [--interval 1s] [--window 10s] [--json] [--iterations N]`: a
// live view of a running agent's recording over its control server (docs/protocol.md). It
// streams the recording (the `stream` command: the recording's own bytes, into a temporary
// file) and at every refresh reads what was appended since the last one and the last --window
// of events with the same loader as `report` (analysis/followed_recording.h: the map data
// is kept, so a refresh costs the same after an hour as after a minute), so the hottest
// methods are the methods view's statistic over that window; the rest comes
// from the status command (losses, the process's memory) and the recording's status reports
// (heap, GC). The agent writes its chunks at least once a second: the newest second or so is
// missing from a refresh until the next one. A JVM given by pid with no listening agent gets
// one for the view (LoadedForTop), detached again at the end.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "analysis/followed_recording.h"
#include "analysis/method_stats.h"
#include "analysis/status_summary.h"
#include "cli/agent_args.h"
#include "cli/command.h"
#include "cli/control_session.h"
#include "cli/driven_jvm.h"
#include "cli/interrupt.h"
#include "export/json_report.h"
#include "export/text_report.h"
#include "format/reader.h"
#include "protocol/client.h"

namespace stackscope::cli {

namespace {

using protocol::Json;
using Clock = std::chrono::steady_clock;

struct TopArgs {
  ControlTarget control;
  std::string interval = "1s";
  std::string window = "10s";
  size_t top = 10;
  int64_t iterations = 0;  // 0: until Ctrl-C or the recording's end
  bool json = false;
};

// The streamed recording, in a temporary file of its own (removed at the end).
class StreamFile {
 public:
  StreamFile() {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/stackscope-top-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) throw UserError("cannot create a temporary file in " + pattern);
    close(fd);
    path_ = pattern;
    out_.open(path_, std::ios::binary | std::ios::trunc);
  }
  ~StreamFile() { std::filesystem::remove(path_); }

  void append(std::string_view bytes) {
    if (bytes.empty()) ended_ = true;
    out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes_ += bytes.size();
  }
  const std::string& flushed() {
    out_.flush();
    return path_;
  }
  // Empties the file for a new stream (the next file of a rotated recording).
  void restart() {
    out_.close();
    out_.open(path_, std::ios::binary | std::ios::trunc);
    bytes_ = 0;
    ended_ = false;
  }
  uint64_t bytes() const { return bytes_; }
  bool ended() const { return ended_; }

 private:
  std::string path_;
  std::ofstream out_;
  uint64_t bytes_ = 0;
  bool ended_ = false;  // the empty Stream frame came: the recording is finished
};

// Reads frames (stream bytes go to the sink) until `until`, Ctrl-C or the end of the stream.
// False when the connection broke.
bool pump(protocol::Client& client, StreamFile& stream, Clock::time_point until, const InterruptScope& interrupt) {
  while (!stream.ended() && !interrupt.interrupted() && Clock::now() < until) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    protocol::Frame frame;
    std::string error;
    const auto got = client.receive(frame, static_cast<int>(std::clamp<int64_t>(left, 1, 200)), error);
    if (got == protocol::Client::Received::Timeout) continue;
    if (got != protocol::Client::Received::Frame) return false;
    if (frame.type == protocol::FrameType::Stream) stream.append(frame.payload);
  }
  return true;
}

// One refresh: the methods view of the last `window_ns` of the recording (as report --json
// writes it), with top's own members added (docs in the command's footer). The stream file
// is followed from the first refresh that finds it a recording to its restart.
Json refresh(StreamFile& stream, std::unique_ptr<analysis::FollowedRecording>& followed, const Json& status,
             int64_t window_ns, size_t top, int64_t iteration) {
  const int64_t now_ns = status.value("uptime_ns", int64_t{0});
  const analysis::TimeWindow window{std::max<int64_t>(0, now_ns - window_ns), analysis::TimeWindow::kOpen};
  const std::string& path = stream.flushed();
  if (!followed) followed = std::make_unique<analysis::FollowedRecording>(path);
  const uint64_t read_before = followed->bytesRead();
  const analysis::Recording& rec = followed->look(window);
  const analysis::EventScope scope = analysis::ownEvents(rec);
  exporting::ReportOptions options;
  options.file = "(stream)";
  options.event = scope.kind;
  options.metric = scope.metric;
  options.top = top;
  const analysis::MethodStats stats = analysis::computeMethodStats(rec, scope);
  Json out = exporting::methodsJson(rec, stats, options);
  const int64_t covered_ns = std::max<int64_t>(0, rec.windowEndNs() - window.from_ns);
  out["iteration"] = iteration;
  out["window_ns"] = window_ns;
  out["covered_ns"] = covered_ns;
  out["stream_bytes"] = rec.file_size;
  out["stream_bytes_read"] = rec.bytes_read - read_before;
  out["samples_per_second"] = covered_ns > 0 ? 1e9 * static_cast<double>(stats.totals.samples) / covered_ns : 0.0;
  out["recording"] = status.value("recording", false);
  out["samples_taken"] = status.value("samples", int64_t{0});
  out["lost_taken"] = status.value("lost", int64_t{0});
  out["lost_by_reason_taken"] = status.value("lost_by_reason", Json::object());
  out["process_rss_bytes"] = status.value("process_rss_bytes", int64_t{-1});
  const analysis::StatusSummary reports = analysis::summarizeStatus(rec.statuses);
  out["status_reports"] = reports.count;
  if (!rec.statuses.empty()) {
    const format::StatusRecord& last = rec.statuses.back();
    out["heap_used_bytes"] = last.heap_used;
    out["heap_committed_bytes"] = last.heap_committed;
    out["gc_count"] = last.gc_count;
    out["gc_time_ns"] = last.gc_time_ns;
    out["gc_count_in_window"] = last.gc_count - rec.statuses.front().gc_count;
    out["cpu_load_pct"] = reports.mean_cpu_load_pct;
  }
  return out;
}

void printText(const Json& view, std::ostream& out) {
  auto mb = [&](const char* key) { return view.value(key, int64_t{0}) / (1024 * 1024); };
  if (isatty(STDOUT_FILENO)) out << "\x1b[H\x1b[2J";  // home and clear: a refreshing view
  else out << '\n';
  out << "stackscope top: last " << view.value("window_ns", int64_t{0}) / 1'000'000'000 << " s ("
      << view.value("covered_ns", int64_t{0}) / 1'000'000 << " ms in the stream), "
      << static_cast<int64_t>(view.value("samples_per_second", 0.0)) << " samples/s, "
      << view.value("lost_taken", int64_t{0}) << " lost in all";
  if (view.contains("heap_used_bytes")) {
    out << ", heap " << mb("heap_used_bytes") << "/" << mb("heap_committed_bytes") << " MB, GC "
        << view.value("gc_count_in_window", int64_t{0}) << " in the window (" << view.value("gc_count", int64_t{0})
        << " in all)";
  }
  out << ", RSS " << mb("process_rss_bytes") << " MB\n\n";
  out << "  Self%  Total%  Method\n";
  for (const Json& m : view.at("methods")) {
    char line[64];
    std::snprintf(line, sizeof line, "%6.1f%% %6.1f%%  ", m.value("self_pct", 0.0), m.value("total_pct", 0.0));
    out << line << m.value("display", m.value("method", std::string())) << '\n';
  }
  out.flush();
}

// A JVM given by pid whose agent does not listen (or that has none) gets one, loaded as
// `attach` does, with a cpu recording at 10 ms into a temporary file the JVM writes; at the end
// the recording is stopped, the agent detached and the file removed: the JVM is left as found.
// An agent that records since the JVM's start refuses that recording: its own is shown, and
// at the end only the server is closed (driven_jvm.h: a detach would end that recording).
class LoadedForTop {
 public:
  LoadedForTop(const ControlTarget& control, const InterruptScope& interrupt, DrivenJvm& jvm) : jvm_(jvm) {
    const std::string& target = control.target;
    const bool by_pid = !target.empty() && target.find_first_not_of("0123456789") == std::string::npos;
    if (!by_pid || !control.token.empty()) {
      connectToTarget(control, interrupt, jvm.client, jvm.hello);
      return;
    }
    connectOrLoadAgent(parsePid(target), kTimeoutMs, jvm);
    if (!jvm.opened_server) return;
    file_ = (std::filesystem::temp_directory_path() /
             ("stackscope-top-" + target + "-" + std::to_string(Clock::now().time_since_epoch().count()) + ".ssr"))
                .string();
    Json reply;
    std::string error;
    if (!jvm.client.request(Json{{"cmd", "start"}, {"options", agentOptions(AgentArgs{}, file_, "")}}, reply, error, 30'000)) {
      if (reply.is_object() && reply.value("error", std::string()) == protocol::error::kUnavailable) {
        // Recording since the JVM's start: that recording is the one to show.
        std::cerr << "stackscope: JVM " << target << " records since its start into " << runningRecordingFile(jvm)
                  << ": showing that recording\n";
        close_only_ = true;
        return;
      }
      detachAgent(jvm, kTimeoutMs);
      throw UserError("JVM " + target + ": " + error);
    }
  }
  ~LoadedForTop() {
    if (!jvm_.opened_server) return;
    if (close_only_) {  // the recording is not ours: only the server we opened goes
      if (!closeServer(jvm_, kTimeoutMs)) std::cerr << "stackscope: warning: the agent did not close its server in time\n";
      return;
    }
    Json reply;
    std::string error;
    jvm_.client.request(Json{{"cmd", "stop"}}, reply, error, 30'000);
    if (!detachAgent(jvm_, kTimeoutMs)) std::cerr << "stackscope: warning: the agent did not finish its detach in time\n";
    std::filesystem::remove(file_, ignored_);
  }
  LoadedForTop(const LoadedForTop&) = delete;
  LoadedForTop& operator=(const LoadedForTop&) = delete;

 private:
  static constexpr int kTimeoutMs = 10'000;
  DrivenJvm& jvm_;
  std::string file_;
  bool close_only_ = false;  // the JVM recorded already: close the server at the end, no detach
  std::error_code ignored_;
};

int runTop(const TopArgs& args) {
  const int64_t interval_ns = parseDurationOption(args.interval, "--interval");
  const int64_t window_ns = parseDurationOption(args.window, "--window");
  if (args.iterations < 0) throw UserError("--iterations must be 0 (no limit) or more");
  // First: an end asked for while the agent loads, or while it detaches at the end, waits
  // for that to finish.
  const InterruptScope interrupt;
  DrivenJvm jvm;
  const LoadedForTop loaded(args.control, interrupt, jvm);
  protocol::Client& client = jvm.client;
  std::string error;
  StreamFile stream;
  std::unique_ptr<analysis::FollowedRecording> followed;
  client.setStreamSink([&](std::string_view bytes) { stream.append(bytes); });
  // Asks for the stream of the file being written and waits for its first bytes: a refresh
  // counts from them, with the file's start in its window.
  const auto openStream = [&] {
    Json reply;
    if (!client.request(Json{{"cmd", "stream"}}, reply, error)) throw UserError(error);
    const auto first_deadline = Clock::now() + std::chrono::seconds(10);
    while (stream.bytes() == 0 && !stream.ended() && !interrupt.interrupted() && Clock::now() < first_deadline) {
      if (!pump(client, stream, Clock::now() + std::chrono::milliseconds(100), interrupt))
        throw UserError("the agent closed the connection");
    }
  };
  openStream();
  if (stream.bytes() == 0 && !interrupt.interrupted()) {
    throw UserError("the agent records nothing now (start a recording: stackscope connect " + args.control.target +
                    " start ...)");
  }
  for (int64_t iteration = 1; args.iterations == 0 || iteration <= args.iterations; ++iteration) {
    const bool connected = pump(client, stream, Clock::now() + std::chrono::nanoseconds(interval_ns), interrupt);
    if (interrupt.interrupted()) break;
    Json status;
    if (!connected || !client.request(Json{{"cmd", "status"}}, status, error)) {
      std::cerr << "stackscope: error: the connection to the agent broke\n";
      return 2;
    }
    try {
      const Json view = refresh(stream, followed, status, window_ns, args.top, iteration);
      if (args.json) {
        std::cout << view.dump() << std::endl;  // one object per line: a stream of refreshes
      } else {
        printText(view, std::cout);
      }
    } catch (const format::FormatError& e) {
      std::cerr << "stackscope: warning: the stream is not readable yet: " << e.what() << '\n';
    }
    if (!std::cout) break;  // its reader went away (a closed pipe): the end, as at Ctrl-C
    if (stream.ended()) {
      // With rotation a stream follows one file: while the agent records, the next is asked
      // for (the window then starts again with it).
      if (status.value("recording", false)) {
        followed.reset();
        stream.restart();
        openStream();
        continue;
      }
      if (!args.json) std::cout << "\nthe recording ended\n";
      break;
    }
  }
  return 0;
}

}  // namespace

Command addTopCommand(CLI::App& parent) {
  auto args = std::make_shared<TopArgs>();
  CLI::App* cmd = parent.add_subcommand("top", "Live view of a running agent: hottest methods, rates, losses, GC, heap");
  addControlTargetArgs(cmd, args->control);
  cmd->add_option("--interval", args->interval, "Time between refreshes (default 1s)");
  cmd->add_option("--window", args->window, "The hottest methods of this last stretch of the recording (default 10s)");
  cmd->add_option("--top", args->top, "Methods shown (default 10)");
  cmd->add_option("--iterations", args->iterations, "Refreshes before it exits (default 0: until Ctrl-C or the end)");
  cmd->add_flag("--json", args->json, "One JSON object per refresh, one per line");
  cmd->footer(
      "A JVM given by pid whose agent does not listen gets one as with `stackscope attach`, recording cpu\n"
      "samples every 10 ms for the view; at the end it is stopped and detached and its file removed. An agent\n"
      "that listens already (control=..., or a JVM stackscope attach is driving) is watched as it is. --json: each line is the methods view of `report --json` over the window (its header\n"
      "members, methods: [{method, display, self, total, self_pct, total_pct, ...}] hottest first), plus\n"
      "iteration, window_ns, covered_ns (the part of the window the stream holds yet), stream_bytes (the\n"
      "streamed file's size), stream_bytes_read (what this refresh read of it: what came since the last one and\n"
      "the window's events), samples_per_second\n"
      "(samples in the window / covered_ns), recording (the agent still records), samples_taken, lost_taken,\n"
      "lost_by_reason_taken (the agent's counts since the recording's start, from status), process_rss_bytes,\n"
      "status_reports (in the window) and, from the last of them, heap_used_bytes, heap_committed_bytes,\n"
      "gc_count, gc_time_ns (since the JVM's start), gc_count_in_window and cpu_load_pct (mean process CPU\n"
      "in the window, 100 = all cores).");
  return {cmd, [args] { return runTop(*args); }};
}

}  // namespace stackscope::cli

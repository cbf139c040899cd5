#include "agent/agent_control.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agent/clocks.h"
#include "agent/java_api.h"

namespace stackscope::agent {

namespace {

// How long a command waits for the writer thread (it holds its lock for one drain cycle).
constexpr int64_t kWriterWaitNs = 5'000'000'000;
constexpr const char* kNeedsLifeCycle =
    "this agent records from JVM start until stop, detach or exit; starting recordings and "
    "changing filters at any time is not available yet";

// Resident memory of the whole process (the JVM's and the agent's), from /proc/self/statm.
int64_t processResidentBytes() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (!file) return -1;
  long long size = 0;
  long long resident = -1;
  if (std::fscanf(file, "%lld %lld", &size, &resident) != 2) resident = -1;
  std::fclose(file);
  return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

}  // namespace

AgentControl::~AgentControl() {
  if (file_fd_ >= 0) close(file_fd_);
}

void AgentControl::describe(protocol::Json& out) {
  out["pid"] = getpid();
  out["jvm"] = context_.jvm;
#ifdef STACKSCOPE_VERSION
  out["agent"] = STACKSCOPE_VERSION;
#endif
}

void AgentControl::status(JNIEnv*, protocol::Json& out) {
  const bool running = context_.recording();
  out["recording"] = running;
  protocol::Json traces = protocol::Json::object();
  const Options& options = *context_.options;
  traces["events"] = eventList(options);
  if (options.mode != SampleMode::None) traces["interval_ns"] = options.interval_ns;
  traces["options"] = context_.options_text;
  out["settings"] = traces;
  out["file"] = context_.file;
  out["samples"] = context_.writer_thread->samplesWritten();
  out["bytes_written"] = context_.writer_thread->committedBytes();
  protocol::Json lost = protocol::Json::object();
  uint64_t lost_total = 0;
  for (int reason = 1; reason <= format::kLostReasonMax; ++reason) {
    const uint64_t count = context_.lost->get(static_cast<format::LostReason>(reason));
    if (count == 0) continue;
    lost[format::lostReasonName(static_cast<format::LostReason>(reason))] = count;
    lost_total += count;
  }
  out["lost"] = lost_total;
  out["lost_by_reason"] = lost;
  out["uptime_ns"] = monotonicNs() - context_.start_ns;
  out["process_rss_bytes"] = processResidentBytes();
}

ControlOutcome AgentControl::start(JNIEnv*, const std::string&) {
  return ControlOutcome::refused(protocol::error::kUnavailable, kNeedsLifeCycle);
}

ControlOutcome AgentControl::setFilter(JNIEnv*, const std::string&) {
  return ControlOutcome::refused(protocol::error::kUnavailable, kNeedsLifeCycle);
}

ControlOutcome AgentControl::stop(JNIEnv* jni) {
  if (!context_.stop_recording(jni)) return ControlOutcome::refused(protocol::error::kUnavailable, "not recording");
  return ControlOutcome::done("recording stopped; " + context_.file + " is complete");
}

ControlOutcome AgentControl::mark(const std::string& name, format::MarkerKind kind) {
  if (!context_.recording() || !queueMarker(name, kind, 0)) {
    return ControlOutcome::refused(protocol::error::kUnavailable, "not recording");
  }
  return ControlOutcome::done();
}

ControlOutcome AgentControl::dump(JNIEnv* jni, const std::string& path) {
  if (!context_.recording()) return ControlOutcome::refused(protocol::error::kUnavailable, "not recording");
  std::string error;
  const bool ok = path.empty() ? context_.writer_thread->flushNow(jni, kWriterWaitNs, error)
                               : context_.writer_thread->dumpTo(jni, path, kWriterWaitNs, error);
  if (!ok) return ControlOutcome::refused(protocol::error::kFailed, error);
  return ControlOutcome::done(path.empty() ? "flushed " + context_.file : "wrote the recording so far to " + path);
}

void AgentControl::detach(JNIEnv* jni) { context_.stop_recording(jni); }

bool AgentControl::readRecording(uint64_t offset, size_t max, std::string& out) {
  out.clear();
  const uint64_t committed = context_.writer_thread->committedBytes();
  const bool finished = context_.writer_thread->finished();  // read after: committed is final once it is set
  if (offset >= committed) return !(finished && offset >= context_.writer_thread->committedBytes());
  if (file_fd_ < 0) file_fd_ = open(context_.file.c_str(), O_RDONLY | O_CLOEXEC);
  if (file_fd_ < 0) return false;  // removed or unreadable: nothing more can come
  out.resize(static_cast<size_t>(std::min<uint64_t>(max, committed - offset)));
  const ssize_t n = pread(file_fd_, out.data(), out.size(), static_cast<off_t>(offset));
  if (n <= 0) {
    out.clear();
    return n == 0 || errno == EINTR;
  }
  out.resize(static_cast<size_t>(n));
  return true;
}

}  // namespace stackscope::agent

#include "agent/agent_control.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "agent/clocks.h"
#include "agent/java_api.h"
#include "agent/recording_parts.h"
#include "agent/session.h"
#include "agent/session_control.h"
#include "agent/session_filter.h"
#include "format/part_names.h"

namespace stackscope::agent {

namespace {

// How long a command waits for the writer thread (it holds its lock for one drain cycle).
constexpr int64_t kWriterWaitNs = 5'000'000'000;
constexpr const char* kNotRecording = "not recording";

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

// The session's figures for status (docs/protocol.md).
void describeSession(const Session& session, protocol::Json& out) {
  protocol::Json traces = protocol::Json::object();
  traces["events"] = eventList(session.options);
  if (session.options.mode != SampleMode::None) traces["interval_ns"] = session.options.interval_ns;
  traces["options"] = session.options_text;
  out["settings"] = traces;
  // The filters in force: a filter command may have changed them since the start.
  out["filter"] = session.annotations.filterText();
  if (session.options.traces & kTraceAlloc) out["classes"] = session.allocs.classesText();
  out["file"] = session.file_path;
  out["samples"] = session.writer_thread.samplesWritten();
  // The files (protocol version 2): the part being written and the set on disk.
  const WriterThread::FileFigures figures = session.writer_thread.fileFigures();
  out["bytes_written"] = figures.bytes_before + figures.part_bytes;
  out["part"] = figures.part;
  out["part_file"] = format::partName(session.file_path, figures.part);
  out["part_bytes"] = figures.part_bytes;
  const std::vector<FinishedPart> finished =
      finishedParts(session.file_path, figures.part, session.options.max_files);
  uint64_t set_bytes = figures.part_bytes;
  for (const FinishedPart& part : finished) set_bytes += part.bytes;
  out["set_files"] = finished.size() + 1;
  out["set_first_part"] = finished.empty() ? figures.part : finished.front().number;
  out["set_bytes"] = set_bytes;
  protocol::Json lost = protocol::Json::object();
  uint64_t lost_total = 0;
  for (int reason = 1; reason <= format::kLostReasonMax; ++reason) {
    const uint64_t count = session.lost.get(static_cast<format::LostReason>(reason));
    if (count == 0) continue;
    lost[format::lostReasonName(static_cast<format::LostReason>(reason))] = count;
    lost_total += count;
  }
  out["lost"] = lost_total;
  out["lost_by_reason"] = lost;
  out["uptime_ns"] = monotonicNs() - session.start_ns;
}

ControlOutcome outcomeOf(const ControlResult& result, std::string done) {
  if (result.ok) return ControlOutcome::done(std::move(done));
  std::string message = result.error;
  if (message.starts_with("stackscope: ")) message.erase(0, 12);  // a reply is not a stderr line
  const bool state = result.code == kAttachAlreadyRecording || result.code == kAttachNotRecording;
  return ControlOutcome::refused(state ? protocol::error::kUnavailable : protocol::error::kBadArgument, message);
}

}  // namespace

AgentControl::~AgentControl() {
  if (file_fd_ >= 0) close(file_fd_);
}

void AgentControl::describe(protocol::Json& out) {
  out["pid"] = getpid();
  out["jvm"] = jvm_;
#ifdef STACKSCOPE_VERSION
  out["agent"] = STACKSCOPE_VERSION;
#endif
}

void AgentControl::status(JNIEnv*, protocol::Json& out) {
  out["recording"] = false;
  withCurrentSession([&](Session* session) {
    if (!session) return;
    out["recording"] = session->recording;
    describeSession(*session, out);
  });
  out["process_rss_bytes"] = processResidentBytes();
}

ControlOutcome AgentControl::start(JNIEnv* jni, const std::string& options) {
  const ControlResult started = startSession(jni, options);
  std::string file;
  if (started.ok) withCurrentSession([&](Session* session) { file = session ? session->file_path : ""; });
  return outcomeOf(started, "recording into " + file);
}

ControlOutcome AgentControl::stop(JNIEnv* jni) {
  std::string file;
  withCurrentSession([&](Session* session) { file = session ? session->file_path : ""; });
  return outcomeOf(stopSession(jni), "recording stopped; " + file + " is complete");
}

ControlOutcome AgentControl::mark(const std::string& name, format::MarkerKind kind) {
  bool queued = false;
  withCurrentSession([&](Session* session) { queued = session && session->recording && queueMarker(name, kind, 0); });
  return queued ? ControlOutcome::done() : ControlOutcome::refused(protocol::error::kUnavailable, kNotRecording);
}

namespace {

// What a dump to `path` wrote, for the user (docs/protocol.md).
ControlOutcome dumped(const std::string& path, const WriterThread::DumpedParts& parts) {
  ControlOutcome outcome = ControlOutcome::done("wrote the recording so far to " + path);
  if (parts.last > 0) {
    const bool one = parts.files == 1;
    outcome.message = "wrote the recording so far to " +
                      (one ? format::partName(path, parts.last)
                           : format::partName(path, parts.first) + " … " + format::partName(path, parts.last)) +
                      " (" + std::to_string(parts.files) + (one ? " file" : " files") + "; report " + path + " reads " +
                      (one ? "it" : "them as one recording") +
                      (parts.first > 0 ? "; the parts before " + std::to_string(parts.first) + " were deleted" : "") + ")";
  }
  outcome.fields = {{"files", parts.files}, {"first_part", parts.first}, {"last_part", parts.last}};
  return outcome;
}

}  // namespace

ControlOutcome AgentControl::dump(JNIEnv* jni, const std::string& path) {
  ControlOutcome outcome = ControlOutcome::refused(protocol::error::kUnavailable, kNotRecording);
  // The writer answers within kWriterWaitNs: a start or stop waits that long at most.
  withCurrentSession([&](Session* session) {
    if (!session || !session->recording) return;
    std::string error;
    WriterThread::DumpedParts parts;
    const bool ok = path.empty() ? session->writer_thread.flushNow(jni, kWriterWaitNs, error)
                                 : session->writer_thread.dumpTo(jni, path, kWriterWaitNs, parts, error);
    outcome = !ok           ? ControlOutcome::refused(protocol::error::kFailed, error)
              : path.empty() ? ControlOutcome::done("flushed " + session->file_path)
                             : dumped(path, parts);
  });
  return outcome;
}

ControlOutcome AgentControl::setFilter(JNIEnv*, const FilterChange& change) {
  ControlOutcome outcome = ControlOutcome::refused(protocol::error::kUnavailable, kNotRecording);
  withCurrentSession([&](Session* session) {
    if (!session || !session->recording) return;
    std::string message;
    const bool ok = changeSessionFilters(*session, change, message);
    if (message.starts_with("stackscope: ")) message.erase(0, 12);
    outcome = ok ? ControlOutcome::done(message) : ControlOutcome::refused(protocol::error::kBadArgument, message);
  });
  return outcome;
}

ControlOutcome AgentControl::histogram(JNIEnv* jni) {
  ControlOutcome outcome = ControlOutcome::refused(protocol::error::kUnavailable, kNotRecording);
  // Under the control mutex for the walk: no stop or detach ends the session meanwhile.
  withCurrentSession([&](Session* session) {
    if (!session || !session->recording) return;
    HistogramTotals totals;
    std::string error;
    if (!session->histogram.takeNow(jni, totals, error)) {
      outcome = ControlOutcome::refused(protocol::error::kFailed, error);
      return;
    }
    char message[200];
    std::snprintf(message, sizeof message,
                  "class histogram at %.3f s of the recording: %llu classes, %llu objects, %llu bytes; the heap "
                  "walk stopped the JVM for %.1f ms",
                  static_cast<double>(totals.time_ns) / 1e9, static_cast<unsigned long long>(totals.classes),
                  static_cast<unsigned long long>(totals.instances), static_cast<unsigned long long>(totals.bytes),
                  static_cast<double>(totals.pause_ns) / 1e6);
    outcome = ControlOutcome::done(message);
    outcome.fields = {{"time_ns", totals.time_ns}, {"pause_ns", totals.pause_ns}, {"classes", totals.classes},
                      {"instances", totals.instances}, {"bytes", totals.bytes}};
  });
  return outcome;
}

namespace {

struct DetachJob {
  JavaVM* vm;
  int requester_fd;
  bool server_only;  // a close: the recording goes on
};

void* runDetach(void* arg) {
  const DetachJob job = *static_cast<DetachJob*>(arg);
  delete static_cast<DetachJob*>(arg);
  if (job.server_only) {
    // Stopping the server alone needs no JNI: this thread stays out of the JVM, and so out of
    // the recording that goes on.
    closeControlServer();
    close(job.requester_fd);
    return nullptr;
  }
  JNIEnv* env = nullptr;
  JavaVMAttachArgs args{JNI_VERSION_1_6, const_cast<char*>("stackscope-detach"), nullptr};
  if (job.vm->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env), &args) == JNI_OK && env) {
    const ControlResult detached = detachAgent(env);
    if (!detached.ok) std::fprintf(stderr, "%s\n", detached.error.c_str());
    job.vm->DetachCurrentThread();
  }
  close(job.requester_fd);
  return nullptr;
}

// Runs a detach or a close on a thread of its own; false (requester_fd closed) if it cannot start.
bool handOver(JavaVM* vm, int requester_fd, bool server_only) {
  auto* job = new DetachJob{vm, requester_fd, server_only};
  pthread_t thread;
  if (pthread_create(&thread, nullptr, runDetach, job) == 0) {
    pthread_detach(thread);
    return true;
  }
  delete job;
  close(requester_fd);
  return false;
}

}  // namespace

bool AgentControl::detach(JNIEnv* jni, int requester_fd) {
  // The detach stops this server's thread and waits it out of the JVM's thread list, so it
  // runs on a thread of its own, attached to the JVM only while it works. The requester's
  // connection closes after that thread left the JVM too: a client that sees it close finds
  // no agent thread left.
  // The recording ends first, here: the thread's attach to the JVM then registers no thread
  // in it, and streaming clients get its end.
  stopSession(jni);
  return handOver(vm_, requester_fd, false);  // false: as far as this thread can go, the recording finished
}

bool AgentControl::closeServer(JNIEnv*, int requester_fd) {
  // As for a detach, the server's thread is stopped from a thread of its own; the requester's
  // connection closes once it has stopped.
  return handOver(vm_, requester_fd, true);
}

namespace {
// A stream follows one file: the recording's serial and the file's part number (rotation),
// in one key. Two sessions' worth of 2^32 files each.
uint64_t streamKey(uint64_t serial, uint64_t part) { return (serial << 32) | (part & 0xffffffffu); }
}  // namespace

uint64_t AgentControl::currentRecording() {
  uint64_t key = 0;
  withCurrentSession([&](Session* session) { key = session ? streamKey(session->serial, session->writer_thread.part()) : 0; });
  return key;
}

bool AgentControl::readRecording(uint64_t recording, uint64_t offset, size_t max, std::string& out) {
  out.clear();
  bool more = false;
  withCurrentSession([&](Session* session) {
    const uint64_t serial = recording >> 32, part = recording & 0xffffffffu;
    if (!session || session->serial != serial || recording == 0) return;  // gone: the stream ends
    const WriterThread& writer = session->writer_thread;
    const uint64_t current = writer.part();
    const uint64_t committed = writer.committedBytes();
    const bool finished = writer.finished();  // read after: committed is final once it is set
    const bool rotated = part < (current & 0xffffffffu) || writer.part() != current;
    if (!rotated && offset >= committed) {
      more = !(finished && offset >= writer.committedBytes());
      return;
    }
    if (file_recording_ != recording && file_fd_ >= 0) {
      close(file_fd_);
      file_fd_ = -1;
    }
    const std::string path = format::partName(session->file_path, part);
    if (file_fd_ < 0) file_fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    file_recording_ = recording;
    if (file_fd_ < 0) return;  // removed (maxfiles=) or unreadable: nothing more can come
    // A rotated file is complete: read to its end. The current one: to its last whole chunk.
    out.resize(static_cast<size_t>(rotated ? max : std::min<uint64_t>(max, committed - offset)));
    const ssize_t n = pread(file_fd_, out.data(), out.size(), static_cast<off_t>(offset));
    if (n <= 0) {
      out.clear();
      more = !rotated && (n == 0 || errno == EINTR);
      return;
    }
    out.resize(static_cast<size_t>(n));
    more = true;
  });
  return more;
}

}  // namespace stackscope::agent

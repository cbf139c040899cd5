#include "fixture.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "format/layout.h"
#include "format/reader.h"
#include "format/writer.h"

namespace stackscope::testing {

using namespace format;

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "stackscope-test-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void writeFile(const std::string& path, const std::string& content) { std::ofstream(path, std::ios::binary) << content; }

void truncateFile(const std::string& path, uint64_t size) { std::filesystem::resize_file(path, size); }

uint64_t lastChunkOffset(const std::string& path) { return format::RecordingReader(path).chunks().back().offset; }

void corruptChunk(const std::string& path, int chunk) {
  uint64_t offset = 0;
  {
    format::RecordingReader reader(path);
    const auto& chunks = reader.chunks();
    offset = chunks.at(chunk < 0 ? chunks.size() - 1 : static_cast<size_t>(chunk)).offset;
  }
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(static_cast<std::streamoff>(offset + format::layout::kChunkHeaderSize + 2));
  const char byte = static_cast<char>(file.get() ^ 0x5a);
  file.seekp(static_cast<std::streamoff>(offset + format::layout::kChunkHeaderSize + 2));
  file.put(byte);
}

namespace {

enum Method : uint32_t { kMain = 1, kA, kB, kLeaf, kSleep, kRun };
enum Thread : uint32_t { kMainThread = 1, kWorker, kSleeper };

uint32_t stack(RecordingWriter& w, std::vector<uint32_t> outermost_first) {
  std::vector<Frame> frames;
  for (auto it = outermost_first.rbegin(); it != outermost_first.rend(); ++it) frames.push_back({*it, 7});
  return w.internStack(frames.data(), frames.size());
}

void method(RecordingWriter& w, uint32_t id, const char* cls, const char* name, const char* signature) {
  MethodRecord m;
  m.id = id;
  m.class_name = w.internString(cls);
  m.method_name = w.internString(name);
  m.signature = w.internString(signature);
  m.source_file = w.internString("Source.java");
  m.lines = {{0, 10}, {7, 11}};
  w.writeMethod(m);
}

}  // namespace

void writeTestInfo(RecordingWriter& w, const std::string& mode, int64_t status_interval_ns, int64_t pid) {
  RecordingInfo info;
  info.start_epoch_ns = 1714564800LL * 1000000000LL;  // 2024-05-01 12:00:00 UTC
  info.mode = mode;
  info.interval_ns = 10 * kMs;
  info.status_interval_ns = status_interval_ns;
  info.pid = pid;
  info.jvm = "OpenJDK 64-Bit Server VM 17.0.10";
  info.options = "event=" + mode + ",interval=10ms";
  w.writeInfo(info);
}

void writeGcRecordingStart(RecordingWriter& w) {
  writeTestInfo(w, "cpu,gc", 0, 1);
  w.writeThread({1, "main", 11, 1});
  method(w, 1, "app.Main", "main", "()V");
  const Frame frame{1, 0};
  const uint32_t stack = w.internStack(&frame, 1);
  const uint32_t young = w.internString("young"), cause = w.internString("Allocation Failure");
  for (int64_t t : {10, 20, 30, 40}) w.writeSample({t * kMs, 1, stack, format::ThreadState::Running, 1});
  w.writeGc({15 * kMs, 2 * kMs, young, cause});
  w.writeGc({35 * kMs, 3 * kMs, young, cause});
}

void writeReferenceRecording(const std::string& path, bool finish) {
  RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  writeTestInfo(w, "wall", 30 * kMs, 4242);
  method(w, kMain, "app.Main", "main", "([Ljava/lang/String;)V");
  method(w, kA, "app.Work", "a", "()V");
  method(w, kB, "app.Work", "b", "()V");
  method(w, kLeaf, "app.Util$Inner", "leaf", "(I)I");
  method(w, kSleep, "java.lang.Thread", "sleep", "(J)V");
  method(w, kRun, "app.Worker", "run", "()V");
  w.writeThread({kMainThread, "main", 1001, 1});
  w.writeThread({kWorker, "worker-0", 1002, 20});
  w.writeThread({kWorker, "worker-1", 1002, 20});  // renamed: the last record wins
  w.writeThread({kSleeper, "sleeper", 1003, 21});
  const uint32_t sa = stack(w, {kMain, kA, kLeaf});
  const uint32_t sb = stack(w, {kMain, kA});
  const uint32_t sr = stack(w, {kMain, kA, kB, kA, kB});
  const uint32_t sw = stack(w, {kRun, kA});
  const uint32_t ss = stack(w, {kRun, kSleep});

  // Who the threads work for: main for u1/r1 until 30ms and for u2 after; the worker for u1
  // in the shop application; the sleeper for nobody.
  const auto annotate = [&](uint32_t id, const char* user, const char* request, const char* application) {
    AnnotationRecord a{id, {}};
    a.fields[static_cast<int>(AnnotationField::User)] = w.internString(user);
    if (request) a.fields[static_cast<int>(AnnotationField::Request)] = w.internString(request);
    if (application) a.fields[static_cast<int>(AnnotationField::Application)] = w.internString(application);
    w.writeAnnotation(a);
  };
  annotate(1, "u1", "r1", nullptr);
  annotate(2, "u2", nullptr, nullptr);
  annotate(3, "u1", nullptr, "shop");
  const auto annotationOf = [](int64_t ms, uint32_t thread) -> uint32_t {
    if (thread == kMainThread) return ms <= 30 ? 1 : 2;
    return thread == kWorker ? 3 : 0;
  };
  // Phases: "init" [0, 25ms), "work" [35ms, 65ms); point markers a at 35ms and b at 55ms.
  w.writeMarker({0, kMainThread, MarkerKind::Begin, w.internString("init")});
  w.writeMarker({25 * kMs, kMainThread, MarkerKind::End, w.internString("init")});
  w.writeMarker({35 * kMs, kMainThread, MarkerKind::Begin, w.internString("work")});
  w.writeMarker({35 * kMs, kMainThread, MarkerKind::Point, w.internString("a")});
  w.writeMarker({55 * kMs, kMainThread, MarkerKind::Point, w.internString("b")});
  w.writeMarker({65 * kMs, kMainThread, MarkerKind::End, w.internString("work")});
  const auto sample = [&](int64_t ms, uint32_t thread, uint32_t stack, ThreadState state = ThreadState::Running,
                          uint32_t weight = 1) {
    w.writeSample({ms * kMs, thread, stack, state, weight, annotationOf(ms, thread)});
  };
  w.writeThreadStart({0, kMainThread});
  w.writeThreadStart({0, kSleeper});
  sample(0, kMainThread, sb);
  sample(0, kSleeper, ss, ThreadState::Sleeping);
  w.writeThreadStart({1 * kMs, kWorker});
  sample(5, kWorker, sw);
  sample(10, kMainThread, sa);
  sample(10, kSleeper, ss, ThreadState::Sleeping);
  sample(15, kWorker, sw, ThreadState::Running, 2);
  sample(20, kMainThread, sa);
  sample(20, kSleeper, ss, ThreadState::Sleeping);
  w.writeThreadEnd({20 * kMs, kWorker});
  w.writeLost({25 * kMs, LostReason::NotWalkable, 2});
  sample(30, kMainThread, sb, ThreadState::Blocked);
  sample(30, kSleeper, ss, ThreadState::Sleeping);
  w.writeStatus({30 * kMs, 250, 1, 2 * kMs, 10u << 20, 64u << 20, 5});
  if (!w.flush()) throw std::runtime_error(w.lastError());
  sample(40, kMainThread, sr);
  w.writeLost({45 * kMs, LostReason::BufferFull, 1});
  sample(50, kMainThread, sr);
  sample(60, kMainThread, sa);
  w.writeStatus({60 * kMs, 750, 3, 12 * kMs, 20u << 20, 64u << 20, 4});
  w.writeLost({65 * kMs, LostReason::NotWalkable, 1});
  const bool ok = finish ? w.finish(70 * kMs) : w.flush();
  if (!ok) throw std::runtime_error(w.lastError());
}

}  // namespace stackscope::testing

// Helpers for format tests: temp files and a visitor that keeps everything it sees.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <zstd.h>

#include "format/bytes.h"
#include "format/layout.h"
#include "format/reader.h"
#include "format/writer.h"

namespace stackscope::format::testing {

inline std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("stackscope-format-" + std::to_string(::getpid()) + "-" + name)).string();
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

struct Collector : RecordVisitor {
  std::vector<RecordingInfo> infos;
  std::map<uint32_t, std::string> strings;
  std::vector<MethodRecord> methods;
  std::vector<StackRecord> stacks;
  std::vector<ThreadRecord> threads;
  std::vector<SampleRecord> samples;
  std::vector<ThreadEventRecord> starts, ends;
  std::vector<StatusRecord> statuses;
  std::vector<LostRecord> losts;
  std::vector<RecordingEndRecord> endings;
  std::vector<uint32_t> unknowns;
  std::vector<AnnotationRecord> annotations;
  std::vector<MarkerRecord> markers;
  std::vector<AnnotationChangeRecord> changes;
  std::vector<GcRecord> gcs;
  std::vector<ExceptionRecord> exceptions;
  std::vector<AllocRecord> allocs;
  std::vector<ObjectFreeRecord> frees;
  std::vector<LockRecord> locks;

  void info(const RecordingInfo& r) override { infos.push_back(r); }
  void string(uint32_t id, std::string_view v) override { strings[id] = std::string(v); }
  void method(const MethodRecord& r) override { methods.push_back(r); }
  void stack(const StackRecord& r) override { stacks.push_back(r); }
  void thread(const ThreadRecord& r) override { threads.push_back(r); }
  void sample(const SampleRecord& r) override { samples.push_back(r); }
  void threadStart(const ThreadEventRecord& r) override { starts.push_back(r); }
  void threadEnd(const ThreadEventRecord& r) override { ends.push_back(r); }
  void status(const StatusRecord& r) override { statuses.push_back(r); }
  void lost(const LostRecord& r) override { losts.push_back(r); }
  void end(const RecordingEndRecord& r) override { endings.push_back(r); }
  void unknown(uint32_t type, std::string_view) override { unknowns.push_back(type); }
  void annotation(const AnnotationRecord& r) override { annotations.push_back(r); }
  void marker(const MarkerRecord& r) override { markers.push_back(r); }
  void annotationChange(const AnnotationChangeRecord& r) override { changes.push_back(r); }
  void gc(const GcRecord& r) override { gcs.push_back(r); }
  void exception(const ExceptionRecord& r) override { exceptions.push_back(r); }
  void alloc(const AllocRecord& r) override { allocs.push_back(r); }
  void objectFree(const ObjectFreeRecord& r) override { frees.push_back(r); }
  void lock(const LockRecord& r) override { locks.push_back(r); }
};

// Builds a file by hand holding one event chunk with the given raw records.
// The payload's checksum is the one `features` names, unless `payload_sum` overrides it.
// `record_count` is the chunk header's.
inline void writeHandmadeFile(const std::string& path, const std::string& raw, uint16_t oldest_reader = kOldestReaderVersion,
                              uint32_t features = kFeatureZstdChunks, std::optional<uint32_t> payload_sum = std::nullopt,
                              uint32_t record_count = 3) {
  std::string file(reinterpret_cast<const char*>(layout::kFileMagic), 8);
  putFixed<uint16_t>(file, 9);
  putFixed<uint16_t>(file, oldest_reader);
  putFixed<uint32_t>(file, features);
  std::string payload(ZSTD_compressBound(raw.size()), '\0');
  payload.resize(ZSTD_compress(payload.data(), payload.size(), raw.data(), raw.size(), 1));
  std::string header;
  putFixed<uint32_t>(header, layout::kChunkMagic);
  putFixed<uint8_t>(header, static_cast<uint8_t>(ChunkKind::Event));
  putFixed<uint8_t>(header, layout::kCompressionZstd);
  putFixed<uint16_t>(header, 0);
  putFixed<uint32_t>(header, static_cast<uint32_t>(payload.size()));
  putFixed<uint32_t>(header, static_cast<uint32_t>(raw.size()));
  putFixed<uint32_t>(header, record_count);
  const bool lanes = (features & kFeatureLaneChecksums) != 0;
  putFixed<uint32_t>(header, payload_sum.value_or(lanes ? laneChecksum(payload.data(), payload.size()) : fnv1a(payload.data(), payload.size())));
  putFixed<int64_t>(header, 0);
  putFixed<int64_t>(header, 100);
  putFixed<uint32_t>(header, fnv1a(header.data(), header.size()));
  writeFile(path, file + header + payload);
}

// A handmade file's records, and in `warnings` what the reader said but the missing index
// (every handmade file has none).
inline Collector readHandmade(const std::string& path, std::vector<std::string>* warnings = nullptr) {
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  if (warnings)
    for (const std::string& w : reader.warnings())
      if (w.find("has no index") == std::string::npos) warnings->push_back(w);
  return c;
}

inline void putRecord(std::string& raw, uint32_t type, const std::string& body) {
  putVarint(raw, type);
  putBytes(raw, body);
}

// A small but complete recording: two chunks of events, all record types.
inline void writeSmallRecording(const std::string& path, int flushes = 3) {
  RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  w.writeInfo({1700000000000000000, "cpu", 10000000, 1000000000, 4242, "Test VM 17", "event=cpu", {}, /*sample_metrics=*/0, /*boot_id=*/""});
  const uint32_t cls = w.internString("pkg.Main$Inner");
  w.writeMethod({1, cls, w.internString("run"), w.internString("()V"), w.internString("Main.java"), {{0, 10}, {5, 11}}});
  w.writeMethod({2, cls, w.internString("work"), w.internString("(I)J"), 0, {}});
  w.writeThread({1, "main", 100, 1});
  int64_t t = 0;
  for (int f = 0; f < flushes; ++f) {
    w.writeThreadStart({t, 1});
    for (int i = 0; i < 10; ++i) {
      const Frame frames[] = {{2, i}, {1, 5}};
      t += 10000000;
      w.writeSample({t, 1, w.internStack(frames, 2), ThreadState::Running, 1});
    }
    w.writeStatus({t, 500, 2, 3000000, 1 << 20, 4 << 20, 7});
    w.writeLost({t, LostReason::GcActive, 2});
    if (!w.flush()) throw std::runtime_error(w.lastError());
  }
  if (!w.finish(t + 1)) throw std::runtime_error(w.lastError());
}

}  // namespace stackscope::format::testing

#include "analysis/load.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/event_decoder.h"
#include "analysis/native_frame_names.h"
#include "analysis/parallel.h"
#include "common/duration.h"
#include "format/reader.h"

namespace stackscope::analysis {

namespace {

// The event table is sized up front for at most this many events (1.6 GB of address space),
// shared out among the runs in proportion to their chunks' record counts; events beyond a
// run's share are kept apart and inserted in place after decoding (a copy of the table's
// tail). A count a hostile file makes up so costs address space only: pages of the table are
// mapped as events fill them.
constexpr size_t kMaxSizedEvents = size_t{1} << 26;

template <typename T>
decltype(auto) slot(std::vector<T>& table, uint32_t id) {
  if (table.size() <= id) table.resize(size_t{id} + 1);
  return table[id];
}

// Sets each thread's parent from the ThreadParent records, found by its Java id. Links a
// damaged file could make wrong are left out: an unknown thread or stack, a second parent, a
// thread its own ancestor.
constexpr size_t kMaxThreadNesting = 256;

void linkThreadParents(Recording& rec, const std::vector<format::ThreadParentRecord>& parents) {
  std::unordered_map<int64_t, uint32_t> by_java_id;
  for (uint32_t t = 1; t < rec.threads.size(); ++t)
    if (rec.threads[t].defined && !rec.threads[t].is_virtual && rec.threads[t].java_id != 0) by_java_id[rec.threads[t].java_id] = t;
  for (const format::ThreadParentRecord& p : parents) {
    const auto child = by_java_id.find(p.child_java_id);
    if (child == by_java_id.end() || p.thread == 0 || p.thread >= rec.threads.size() || p.thread == child->second) continue;
    ThreadInfo& info = rec.threads[child->second];
    if (info.parent != 0) continue;
    // Refuse a cycle (the child above its parent) and chains deeper than any program starts:
    // the views that follow them recurse.
    uint32_t ancestor = p.thread;
    for (size_t steps = 0; ancestor != 0 && ancestor != child->second && steps < kMaxThreadNesting; ++steps)
      ancestor = rec.threads[ancestor].parent;
    if (ancestor != 0) continue;
    info.parent = p.thread;
    info.parent_stack = p.stack < rec.stacks.size() ? p.stack : 0;
    info.started_ns = p.time_ns;
  }
}

// The map records (names, stacks, threads, annotations, markers, agent warnings): read
// first, sequentially, before any event chunk.
class MapLoader final : public format::RecordVisitor {
 public:
  explicit MapLoader(Recording& recording) : rec_(recording) {}

  void info(const format::RecordingInfo& info) override {
    rec_.has_info = true;
    rec_.info = info;
  }
  void string(uint32_t id, std::string_view value) override {
    if (accept(id)) slot(rec_.strings, id) = value;
  }
  void method(const format::MethodRecord& m) override {
    if (!accept(m.id)) return;
    slot(rec_.methods, m.id) = {true, m.class_name, m.method_name, m.signature, m.source_file, m.lines, m.code_source};
    if (m.native_module != 0) native_.push_back({m.id, m.native_module, m.native_build_id, m.native_address});
  }
  void stack(const format::StackRecord& s) override {
    if (!accept(s.id)) return;
    for (const format::Frame& frame : s.frames) {
      if (!accept(frame.method)) return;
      slot(rec_.methods, frame.method);  // so statistics can index methods by any frame's id
    }
    slot(rec_.stacks, s.id) = s.frames;
    slot(rec_.stack_defined, s.id) = true;
  }
  void thread(const format::ThreadRecord& t) override {
    if (!accept(t.id)) return;
    ThreadInfo& info = slot(rec_.threads, t.id);  // the last record for an id wins
    info.defined = true;
    // A renamed thread is written again with the same id (docs/format.md): keep the history.
    info.takeName(t.name);
    info.os_tid = t.os_tid;
    info.java_id = t.java_id;
    info.is_virtual = t.is_virtual;
  }
  void annotation(const format::AnnotationRecord& a) override {
    if (!accept(a.id)) return;
    Annotation& fields = slot(rec_.annotations, a.id);
    std::copy(std::begin(a.fields), std::end(a.fields), fields.begin());
  }
  // Every marker, whatever the window: they come with the map data and bound snapshots.
  void marker(const format::MarkerRecord& m) override { rec_.markers.push_back(m); }
  void threadParent(const format::ThreadParentRecord& p) override { parents_.push_back(p); }
  // Map data too: what the agent found wrong holds for every window.
  void agentWarning(const format::AgentWarningRecord& w) override { agent_warnings_.push_back(agentWarningText(w)); }

  // Completes the model once the reader is done and the events are in.
  void finish(format::RecordingReader& reader, DecodedEvents& events) {
    const int64_t last_event = std::max(events.last_event_ns, reader.lastEventTime());
    rec_.ended = events.ended;
    rec_.end_ns = events.ended ? events.end_ns : last_event;
    if (rec_.stacks.empty()) rec_.stacks.resize(1);  // id 0 is the empty stack of samples above
    if (rec_.stack_defined.empty()) rec_.stack_defined.resize(1);
    if (rec_.methods.empty()) rec_.methods.resize(1);
    if (rec_.threads.empty()) rec_.threads.resize(1);
    if (rec_.annotations.empty()) rec_.annotations.resize(1);
    nameNativeFrames(rec_, native_);
    linkThreadParents(rec_, parents_);
    std::vector<std::string> warnings = agent_warnings_;
    warnings.insert(warnings.end(), reader.warnings().begin(), reader.warnings().end());
    warnings.insert(warnings.end(), rec_.warnings.begin(), rec_.warnings.end());  // the other readers'
    rec_.warnings = std::move(warnings);
    rec_.file_size = reader.fileSize();
    rec_.bytes_read += reader.bytesRead();
    finishEvents(rec_, events);
    if (const uint64_t rejected = rejected_ids_ + events.rejected_ids)
      rec_.warnings.push_back(std::to_string(rejected) + " records with implausible ids were ignored");
  }

 private:
  bool accept(uint32_t id) {
    if (id < kMaxId) return true;
    ++rejected_ids_;
    return false;
  }

  Recording& rec_;
  std::vector<format::ThreadParentRecord> parents_;
  uint64_t rejected_ids_ = 0;
  std::vector<std::string> agent_warnings_;
  std::vector<NativeAddress> native_;  // the native frames to name once every string is in
};

// Catches only the RecordingEnd record.
class EndFinder final : public format::RecordVisitor {
 public:
  explicit EndFinder(format::RecordVisitor& target) : target_(target) {}
  void end(const format::RecordingEndRecord& e) override { target_.end(e); }

 private:
  format::RecordVisitor& target_;
};

// Below this much decompressed data per thread, a thread costs more than it saves.
constexpr uint64_t kMinRawBytesPerThread = 4u << 20;

// Decodes the event chunks into the model: split into contiguous runs of about equal size,
// one per usable CPU, each decoded by its own thread with its own reader (the caller's for the
// first) into its own region of the event table, then merged in chunk order, so the model is
// the one a sequential read builds.
void decodeEventChunks(const std::string& path, format::RecordingReader& reader, Recording& rec,
                       const std::vector<format::ChunkInfo>& chunks, size_t wanted_threads, DecodedEvents& totals) {
  // A run's region holds its chunks' records. The counts come from the file, so each is
  // believed only as far as its chunk's decompressed size allows (a sample record takes at
  // least kMinSampleBytes): a hostile count of 2^32 must not become an allocation.
  constexpr size_t kMinSampleBytes = 6;
  const auto bound = [](const format::ChunkInfo& c) { return std::min<size_t>(c.record_count, c.raw_size / kMinSampleBytes); };
  uint64_t raw = 0;
  for (const format::ChunkInfo& c : chunks) raw += c.raw_size;
  const size_t worth = wanted_threads > 0 ? wanted_threads : std::min<uint64_t>(raw / kMinRawBytesPerThread, usableCpus());
  const size_t threads = std::clamp<size_t>(worth, 1, std::max<size_t>(chunks.size(), 1));
  // Run r holds chunks [starts[r], starts[r + 1]).
  std::vector<size_t> starts{0};
  uint64_t filled = 0;
  for (size_t i = 0; i < chunks.size() && starts.size() < threads; ++i) {
    filled += chunks[i].raw_size;
    if (filled * threads >= raw * starts.size()) starts.push_back(i + 1);
  }
  starts.push_back(chunks.size());
  const size_t runs = starts.size() - 1;
  // Run r's region is entries [regions[r], regions[r + 1]) of the table.
  std::vector<size_t> regions(runs + 1, 0);
  size_t wanted = 0;
  for (size_t r = 0; r < runs; ++r)
    for (size_t i = starts[r]; i < starts[r + 1]; ++i) {
      regions[r + 1] += bound(chunks[i]);
      wanted += bound(chunks[i]);
    }
  const double share = wanted > kMaxSizedEvents ? static_cast<double>(kMaxSizedEvents) / static_cast<double>(wanted) : 1.0;
  for (size_t r = 0; r < runs; ++r) regions[r + 1] = regions[r] + static_cast<size_t>(static_cast<double>(regions[r + 1]) * share);
  rec.events.resize(regions[runs]);  // not written: each run's thread writes its region
  std::vector<DecodedEvents> decoded(runs);
  std::vector<std::vector<std::string>> warnings(runs);
  std::vector<uint64_t> bytes(runs, 0);
  const auto decodeRun = [&](size_t r, format::RecordingReader& from) {
    const size_t warned = from.warnings().size();
    const uint64_t read = from.bytesRead();
    EventDecoder decoder(rec, rec.window, rec.events, regions[r], regions[r + 1]);
    for (size_t i = starts[r]; i < starts[r + 1]; ++i) {
      decoder.expect(bound(chunks[i]));
      decoder.read(from, chunks[i]);
    }
    decoded[r] = decoder.take();
    if (r > 0) warnings[r].assign(from.warnings().begin() + static_cast<std::ptrdiff_t>(warned), from.warnings().end());
    bytes[r] = from.bytesRead() - read;
  };
  runParts(runs, [&](size_t r) {
    if (r == 0) return decodeRun(0, reader);
    format::RecordingReader own(path);
    decodeRun(r, own);
  });
  for (size_t r = 0; r < runs; ++r) {
    mergeEvents(rec, std::move(decoded[r]), totals);
    rec.warnings.insert(rec.warnings.end(), warnings[r].begin(), warnings[r].end());
    if (r > 0) rec.bytes_read += bytes[r];
  }
}

}  // namespace

std::string agentWarningText(const format::AgentWarningRecord& warning) {
  return "the agent reported at " + formatDuration(warning.time_ns) + ": " + warning.text;
}

Recording loadRecording(const std::string& path, const TimeWindow& window, size_t threads) {
  format::RecordingReader reader(path);
  Recording recording;
  recording.window = window;
  MapLoader maps(recording);
  std::vector<format::ChunkInfo> event_chunks;
  for (const format::ChunkInfo& chunk : reader.plan(window.from_ns, window.to_ns)) {
    if (chunk.kind == format::ChunkKind::Map) reader.readChunk(chunk, maps);
    else event_chunks.push_back(chunk);
  }
  DecodedEvents totals;
  decodeEventChunks(path, reader, recording, event_chunks, threads, totals);
  // Whether the recording finished is told by its last event chunk; a window that ends
  // earlier skipped that chunk, so look at it alone.
  const auto last = reader.lastEventChunk();
  if (last && (last->end_ns < window.from_ns || last->start_ns > window.to_ns)) {
    EventDecoder decoder(recording, {0, 0}, recording.events, recording.events.size(), recording.events.size());
    EndFinder finder(decoder);
    reader.readChunk(*last, finder);
    mergeEvents(recording, decoder.take(), totals);
  }
  maps.finish(reader, totals);
  return recording;
}

Recording loadMapData(const std::string& path) {
  format::RecordingReader reader(path);
  Recording recording;
  recording.window = {0, 0};
  MapLoader maps(recording);
  reader.readMaps(maps);
  DecodedEvents none;
  maps.finish(reader, none);
  return recording;
}

}  // namespace stackscope::analysis

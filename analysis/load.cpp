#include "analysis/load.h"

#include <algorithm>
#include <optional>

#include "common/duration.h"
#include "format/reader.h"

namespace stackscope::analysis {

namespace {

// Ids index dense tables, so an id from a damaged or hostile file must not make us allocate
// gigabytes. Writers hand out ids from 1 upwards; 16 M of any kind is far beyond real use.
constexpr uint32_t kMaxId = 1u << 24;
// Beyond this many samples the table grows as it is filled instead of being sized up front.
constexpr size_t kMaxReservedSamples = size_t{1} << 24;

template <typename T>
decltype(auto) slot(std::vector<T>& table, uint32_t id) {
  if (table.size() <= id) table.resize(size_t{id} + 1);
  return table[id];
}

class Loader final : public format::RecordVisitor {
 public:
  Loader(Recording& recording, const TimeWindow& window) : rec_(recording), window_(window) {}

  void info(const format::RecordingInfo& info) override {
    rec_.has_info = true;
    rec_.info = info;
    own_kind_ = rec_.eventKinds().front();
  }
  void string(uint32_t id, std::string_view value) override {
    if (accept(id)) slot(rec_.strings, id) = value;
  }
  void method(const format::MethodRecord& m) override {
    if (!accept(m.id)) return;
    slot(rec_.methods, m.id) = {true, m.class_name, m.method_name, m.signature, m.source_file, m.lines};
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
    info.name = t.name;
    // A renamed thread is written again with the same id (docs/format.md): keep the history.
    if (info.names.empty() || info.names.back() != t.name) info.names.push_back(t.name);
    if (info.names.size() > ThreadInfo::kMaxNames) info.names.erase(info.names.begin());
    info.os_tid = t.os_tid;
    info.java_id = t.java_id;
    info.is_virtual = t.is_virtual;
  }
  void annotation(const format::AnnotationRecord& a) override {
    if (!accept(a.id)) return;
    Annotation& fields = slot(rec_.annotations, a.id);
    std::copy(std::begin(a.fields), std::end(a.fields), fields.begin());
  }
  void sample(const format::SampleRecord& s) override {
    seen(s.time_ns);
    if (!window_.contains(s.time_ns) || !accept(s.thread)) return;
    const std::optional<EventKind> kind = kindOf(s.kind);
    if (!kind) {
      ++unknown_kinds_;
      return;
    }
    if (s.thread >= rec_.threads.size()) slot(rec_.threads, s.thread);
    uint32_t stack = s.stack;
    // A stack lost with a damaged map chunk: keep the sample in the totals, with no frames.
    if (stack >= rec_.stack_defined.size() || !rec_.stack_defined[stack]) {
      ++missing_stacks_;
      stack = 0;
    }
    // Like a missing stack, a missing annotation leaves the sample in, unannotated.
    const uint32_t annotation = s.annotation < rec_.annotations.size() ? s.annotation : 0;
    // A virtual thread's carrier: kept per thread (a few), not per sample.
    if (s.carrier != 0 && s.carrier != s.thread && accept(s.carrier)) {
      slot(rec_.threads, s.carrier);
      std::vector<uint32_t>& carriers = rec_.threads[s.thread].carriers;
      if (carriers.size() < ThreadInfo::kMaxCarriers && std::find(carriers.begin(), carriers.end(), s.carrier) == carriers.end())
        carriers.push_back(s.carrier);
    }
    out_of_order_ |= !rec_.events.empty() && s.time_ns < rec_.events.back().time_ns;
    rec_.events.push_back({s.time_ns, s.thread, stack, s.state, std::min(s.weight, Event::kMaxWeight), annotation, *kind});
    rec_.kinds_seen |= 1u << static_cast<unsigned>(*kind);
  }
  void threadStart(const format::ThreadEventRecord& e) override {
    seen(e.time_ns);
    if (accept(e.thread)) slot(rec_.threads, e.thread).start_ns = e.time_ns;
  }
  void threadEnd(const format::ThreadEventRecord& e) override {
    seen(e.time_ns);
    if (accept(e.thread)) slot(rec_.threads, e.thread).end_ns = e.time_ns;
  }
  void status(const format::StatusRecord& s) override {
    seen(s.time_ns);
    if (window_.contains(s.time_ns)) rec_.statuses.push_back(s);
  }
  void lost(const format::LostRecord& l) override {
    seen(l.time_ns);
    if (window_.contains(l.time_ns)) rec_.lost[l.reason] += l.count;
  }
  // Every marker, whatever the window: they come with the map data and bound snapshots.
  void marker(const format::MarkerRecord& m) override { rec_.markers.push_back(m); }
  // Map data too: what the agent found wrong holds for every window.
  void agentWarning(const format::AgentWarningRecord& w) override {
    agent_warnings_.push_back(agentWarningText(w));
  }
  void end(const format::RecordingEndRecord& e) override {
    seen(e.time_ns);
    rec_.ended = true;
    end_time_ = e.time_ns;
  }

  // Completes the model once the reader is done.
  void finish(format::RecordingReader& reader) {
    last_event_ = std::max(last_event_, reader.lastEventTime());
    rec_.end_ns = rec_.ended ? end_time_ : last_event_;
    if (rec_.stacks.empty()) rec_.stacks.resize(1);  // id 0 is the empty stack of samples above
    if (rec_.stack_defined.empty()) rec_.stack_defined.resize(1);
    if (rec_.methods.empty()) rec_.methods.resize(1);
    if (rec_.threads.empty()) rec_.threads.resize(1);
    if (rec_.annotations.empty()) rec_.annotations.resize(1);
    // Writers may emit events slightly out of order; statistics that follow a thread from
    // event to event (call counts) need time order. (No decoder fills Recording::amounts
    // yet; the first that does must permute its columns with this sort.)
    const auto by_time = [](const Event& a, const Event& b) { return a.time_ns < b.time_ns; };
    if (out_of_order_) std::stable_sort(rec_.events.begin(), rec_.events.end(), by_time);
    rec_.warnings = agent_warnings_;
    rec_.warnings.insert(rec_.warnings.end(), reader.warnings().begin(), reader.warnings().end());
    rec_.file_size = reader.fileSize();
    rec_.bytes_read = reader.bytesRead();
    if (missing_stacks_)
      rec_.warnings.push_back(std::to_string(missing_stacks_) +
                              " samples refer to stack traces missing from the file; they count in totals without frames");
    if (unknown_kinds_)
      rec_.warnings.push_back(std::to_string(unknown_kinds_) + " samples of a kind this reader does not know were skipped");
    if (rejected_ids_)
      rec_.warnings.push_back(std::to_string(rejected_ids_) + " records with implausible ids were ignored");
  }

 private:
  bool accept(uint32_t id) {
    if (id < kMaxId) return true;
    ++rejected_ids_;
    return false;
  }
  void seen(int64_t time_ns) { last_event_ = std::max(last_event_, time_ns); }
  std::optional<EventKind> kindOf(format::SampleKind kind) const {
    switch (kind) {
      case format::SampleKind::Mode: return own_kind_;
      case format::SampleKind::Cpu: return EventKind::Cpu;
      case format::SampleKind::Wall: return EventKind::Wall;
    }
    return std::nullopt;
  }

  Recording& rec_;
  TimeWindow window_;
  int64_t end_time_ = 0;
  int64_t last_event_ = 0;
  uint64_t missing_stacks_ = 0;
  bool out_of_order_ = false;  // noticed while loading: saves a pass over the events
  EventKind own_kind_ = EventKind::Cpu;  // of sample records that do not name theirs: the mode's
  uint64_t rejected_ids_ = 0;
  uint64_t unknown_kinds_ = 0;
  std::vector<std::string> agent_warnings_;
};

// Catches only the RecordingEnd record.
class EndFinder final : public format::RecordVisitor {
 public:
  explicit EndFinder(format::RecordVisitor& target) : target_(target) {}
  void end(const format::RecordingEndRecord& e) override { target_.end(e); }

 private:
  format::RecordVisitor& target_;
};

}  // namespace

std::string agentWarningText(const format::AgentWarningRecord& warning) {
  return "the agent reported at " + formatDuration(warning.time_ns) + ": " + warning.text;
}

Recording loadRecording(const std::string& path, const TimeWindow& window) {
  format::RecordingReader reader(path);
  Recording recording;
  recording.window = window;
  Loader loader(recording, window);
  // Room for the records of the chunks to read: no reallocation copies of a large table. The
  // counts come from the file, so each is believed only as far as its chunk's decompressed
  // size allows (a sample record takes at least kMinSampleBytes): a hostile count of 2^32
  // must not become an allocation.
  constexpr size_t kMinSampleBytes = 6;
  size_t records = 0;
  for (const format::ChunkInfo& chunk : reader.eventChunks(window.from_ns, window.to_ns))
    records += std::min<size_t>(chunk.record_count, chunk.raw_size / kMinSampleBytes);
  recording.events.reserve(std::min(records, kMaxReservedSamples));
  reader.read(loader, window.from_ns, window.to_ns);
  // Whether the recording finished is told by its last event chunk; a window that ends
  // earlier skipped that chunk, so look at it alone.
  const auto last = reader.lastEventChunk();
  if (last && (last->end_ns < window.from_ns || last->start_ns > window.to_ns)) {
    EndFinder finder(loader);
    reader.readChunk(*last, finder);
  }
  loader.finish(reader);
  return recording;
}

Recording loadMapData(const std::string& path) {
  format::RecordingReader reader(path);
  Recording recording;
  recording.window = {0, 0};
  Loader loader(recording, recording.window);
  reader.readMaps(loader);
  loader.finish(reader);
  return recording;
}

}  // namespace stackscope::analysis

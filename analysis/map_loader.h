// The reading of a recording's map records into the event model (names, stacks, threads,
// annotations, markers, agent warnings), shared by the loader of a whole file (load.cpp) and
// the one that follows a file as it is written (followed_recording.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/event_decoder.h"
#include "analysis/load.h"
#include "analysis/native_frame_names.h"
#include "analysis/recording.h"
#include "format/reader.h"

namespace stackscope::analysis {

// The map records (names, stacks, threads, annotations, markers, agent warnings): read
// first, sequentially, before any event chunk.
class MapLoader final : public format::RecordVisitor {
 public:
  // Native frames of mixed mode named at finish(), or left as written for the caller to name
  // (takeNativeFrames): a model that grows as it is read gives the names string ids the file's
  // next strings would take, and must take them back first (followed_recording.h).
  enum class NativeFrames { Named, AsWritten };
  explicit MapLoader(Recording& recording, NativeFrames natives = NativeFrames::Named)
      : rec_(recording), name_natives_(natives == NativeFrames::Named) {}

  // The native frames read since the last call, not named (NativeFrames::AsWritten).
  std::vector<NativeAddress> takeNativeFrames() { return std::exchange(native_, {}); }

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

  // Completes the model once the reader is done and the events are in. A loader that follows
  // a growing file (followed_recording.h) calls it again at every look, after
  // Recording::dropEvents: what it adds to the map data is cumulative.
  void finish(format::RecordingReader& reader, DecodedEvents& events);

 private:
  template <typename T>
  static typename std::vector<T>::reference slot(std::vector<T>& table, uint32_t id) {
    if (table.size() <= id) table.resize(size_t{id} + 1);
    return table[id];
  }
  bool accept(uint32_t id) {
    if (id < kMaxId) return true;
    ++rejected_ids_;
    return false;
  }

  Recording& rec_;
  bool name_natives_;
  std::vector<format::ThreadParentRecord> parents_;
  uint64_t rejected_ids_ = 0;
  std::vector<std::string> agent_warnings_;
  std::vector<NativeAddress> native_;  // the native frames to name once every string is in
};

// The event half of loadRecording (load.cpp), once the map chunks are read into `maps`:
// decodes `event_chunks` (those meeting recording.window) on `threads` threads (0: the
// loader chooses), finds whether the recording ended, and completes the model (maps.finish).
void readEvents(const std::string& path, format::RecordingReader& reader, Recording& recording, MapLoader& maps,
                const std::vector<format::ChunkInfo>& event_chunks, size_t threads);

}  // namespace stackscope::analysis

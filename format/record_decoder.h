// Decoding of the records inside one decompressed chunk (RecordingReader::decodeRecords), a
// template over the visitor: with a final visitor class (the front-end's event decoder) every
// record's handler is called directly and can be inlined into the loop over the records, where
// a virtual call per record and a record struct built for it showed in perf. Include it only
// where a chunk is decoded (RecordingReader::readChunkTyped's callers).
#pragma once

#include <algorithm>
#include <string>

#include "format/bytes.h"
#include "format/reader.h"

namespace stackscope::format {

namespace record_decoding {

// A SampleRun (33): its samples are decoded a block at a time, column by column (a tight loop per
// column with its cursor in registers; ten cursors side by side spilled to the stack in perf),
// then given one by one as a Sample record's. A column that ends early fails its block before
// any of the block's samples is given; the blocks before were given. Not inlined into the loop
// over the records: one call per run, and the loop's registers stay its own.
template <typename Visitor>
[[gnu::noinline]] bool decodeSampleRun(ByteCursor& in, int64_t& time, Visitor& v) {
  const uint64_t count = in.varint();
  const uint64_t present = in.varint();
  if (in.failed() || (present & kRunRequiredColumns) != kRunRequiredColumns) return false;
  // Each column's bytes, in column order; bits of columns this reader does not know name
  // columns after its own, left unread.
  ByteCursor columns[kSampleRunColumns];
  for (uint32_t c = 0; c < kSampleRunColumns; ++c)
    if (present & (1u << c)) columns[c] = ByteCursor(in.bytes());
  if (in.failed()) return false;
  const auto has = [present](SampleRunColumn c) { return (present & (1u << c)) != 0; };
  constexpr size_t kBlock = 256;
  int64_t times[kBlock];
  uint32_t threads[kBlock], stacks[kBlock], states[kBlock], kinds[kBlock], weights[kBlock], annotations[kBlock], carriers[kBlock];
  uint64_t cpu_us[kBlock], alloc_bytes[kBlock];
  // Fills out[0, m) from the column, or fails; an absent column is left alone (its default is
  // given below).
  const auto fill = [&](SampleRunColumn c, auto* out, size_t m) {
    if (!has(c)) return true;
    ByteCursor& column = columns[c];
    for (size_t i = 0; i < m; ++i) {
      if constexpr (sizeof(*out) == sizeof(uint32_t)) out[i] = column.u32();
      else out[i] = column.varint();
    }
    return !column.failed();
  };
  for (uint64_t done = 0; done < count; done += kBlock) {
    const size_t m = static_cast<size_t>(std::min<uint64_t>(kBlock, count - done));
    ByteCursor& dt = columns[kRunTime];
    for (size_t i = 0; i < m; ++i) times[i] = time += dt.signedVarint();  // each sample moves the running time
    if (dt.failed() || !fill(kRunThread, threads, m) || !fill(kRunStack, stacks, m) || !fill(kRunState, states, m) ||
        !fill(kRunKind, kinds, m) || !fill(kRunWeight, weights, m) || !fill(kRunAnnotation, annotations, m) ||
        !fill(kRunCarrier, carriers, m) || !fill(kRunCpuUs, cpu_us, m) || !fill(kRunAllocBytes, alloc_bytes, m))
      return false;
    const bool kind = has(kRunKind), weight = has(kRunWeight), annotation = has(kRunAnnotation);
    const bool carrier = has(kRunCarrier), cpu = has(kRunCpuUs), alloc = has(kRunAllocBytes);
    for (size_t i = 0; i < m; ++i) {
      SampleRecord r;
      r.time_ns = times[i];
      r.thread = threads[i];
      r.stack = stacks[i];
      r.state = states[i] < kThreadStateCount ? static_cast<ThreadState>(states[i]) : ThreadState::Unknown;
      // A kind this reader does not know is passed on (saturated to a byte): the visitor decides.
      if (kind) r.kind = static_cast<SampleKind>(std::min<uint32_t>(kinds[i], 0xff));
      if (weight) r.weight = weights[i];
      if (annotation) r.annotation = annotations[i];
      if (carrier) r.carrier = carriers[i];
      if (cpu) r.cpu_us = cpu_us[i];
      if (alloc) r.alloc_bytes = alloc_bytes[i];
      v.sample(r);
    }
  }
  return true;
}

// Decodes the body of one known record type and hands it to the visitor. Returns false when
// the body is malformed. `time` carries the chunk's running event time (delta encoded).
template <typename Visitor>
[[gnu::always_inline]] inline bool decodeBody(RecordType type, ByteCursor& in, int64_t& time, StackTree& stacks,
                                              bool line_deltas, Visitor& v) {
  auto eventTime = [&] { return time += in.signedVarint(); };
  switch (type) {
    case RecordType::RecordingInfo: {
      RecordingInfo r;
      r.start_epoch_ns = in.signedVarint();
      r.mode = in.bytes();
      r.interval_ns = in.signedVarint();
      r.status_interval_ns = in.signedVarint();
      r.pid = in.signedVarint();
      r.jvm = in.bytes();
      r.options = in.bytes();
      if (!in.atEnd()) {
        const uint32_t debug = in.u32();
        // A value from a newer writer that this reader does not know reads as "not recorded".
        if (debug <= static_cast<uint32_t>(NonSafepointDebug::On)) r.non_safepoint_debug = NonSafepointDebug(debug);
      }
      if (!in.atEnd()) r.sample_metrics = in.u32();
      if (!in.atEnd()) r.boot_id = in.bytes();
      if (in.failed()) return false;
      v.info(r);
      return true;
    }
    case RecordType::String: {
      const uint32_t id = in.u32();
      const std::string_view value = in.bytes();
      if (in.failed()) return false;
      v.string(id, value);
      return true;
    }
    case RecordType::Method: {
      MethodRecord r;
      r.id = in.u32();
      r.class_name = in.u32();
      r.method_name = in.u32();
      r.signature = in.u32();
      r.source_file = in.u32();
      const uint64_t n = in.varint();
      if (n > in.remaining()) return false;  // each entry takes at least one byte
      r.lines.resize(n);
      if (line_deltas) {
        int64_t bci = 0, line = 0;
        for (LineEntry& e : r.lines) {
          bci += in.signedVarint();
          line += in.signedVarint();
          if (bci < 0 || bci > UINT32_MAX || line < 0 || line > UINT32_MAX) return false;
          e = {static_cast<uint32_t>(bci), static_cast<uint32_t>(line)};
        }
      } else {
        for (LineEntry& e : r.lines) {
          e.bci = in.u32();
          e.line = in.u32();
        }
      }
      if (!in.atEnd()) {
        r.native_module = in.u32();
        r.native_build_id = in.u32();
        r.native_address = in.varint();
      }
      if (!in.atEnd()) r.code_source = in.u32();
      if (in.failed()) return false;
      v.method(r);
      return true;
    }
    case RecordType::Stack: {
      StackRecord r;
      r.id = in.u32();
      const uint64_t n = in.varint();
      if (n > in.remaining()) return false;
      r.frames.resize(n);
      for (Frame& f : r.frames) {
        f.method = in.u32();
        f.bci = static_cast<int32_t>(in.signedVarint());
      }
      if (in.failed()) return false;
      v.stack(r);
      return true;
    }
    case RecordType::StackBranch: {
      StackRecord r;
      r.id = in.u32();
      const uint32_t base = in.u32();
      const uint32_t shared = in.u32();
      const uint64_t n = in.varint();
      if (n > in.remaining()) return false;
      std::vector<Frame> added(n);  // outermost first
      for (Frame& f : added) {
        f.method = in.u32();
        f.bci = static_cast<int32_t>(in.signedVarint());
      }
      if (in.failed() || !stacks.add(r.id, base, shared, added, r.frames)) return false;
      v.stack(r);  // whole, innermost first: visitors see what record 4 gave them
      return true;
    }
    case RecordType::Thread: {
      ThreadRecord r;
      r.id = in.u32();
      r.name = in.bytes();
      r.os_tid = in.signedVarint();
      r.java_id = in.signedVarint();
      if (!in.atEnd()) r.is_virtual = (in.varint() & 1) != 0;  // flags
      if (in.failed()) return false;
      v.thread(r);
      return true;
    }
    case RecordType::Sample:
    case RecordType::KindSample: {
      SampleRecord r;
      // A KindSample's time is a delta from the running time that does not move it (writer.cpp).
      r.time_ns = type == RecordType::KindSample ? time + in.signedVarint() : eventTime();
      // A kind this reader does not know is passed on (saturated to a byte): the visitor decides.
      if (type == RecordType::KindSample) r.kind = static_cast<SampleKind>(std::min<uint32_t>(in.u32(), 0xff));
      r.thread = in.u32();
      r.stack = in.u32();
      const uint32_t state = in.u32();
      r.state = state < kThreadStateCount ? static_cast<ThreadState>(state) : ThreadState::Unknown;
      if (!in.atEnd()) r.weight = in.u32();
      if (!in.atEnd()) r.annotation = in.u32();
      if (!in.atEnd()) r.carrier = in.u32();
      if (!in.atEnd()) r.cpu_us = in.varint();
      if (!in.atEnd()) r.alloc_bytes = in.varint();
      if (in.failed()) return false;
      v.sample(r);
      return true;
    }
    case RecordType::SampleRun:
      return decodeSampleRun(in, time, v);
    case RecordType::Gc: {
      GcRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.duration_ns = in.signedVarint();
      r.collector = in.u32();
      r.cause = in.u32();
      if (in.failed()) return false;
      v.gc(r);
      return true;
    }
    case RecordType::Exception: {
      ExceptionRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.thread = in.u32();
      r.stack = in.u32();
      if (!in.atEnd()) r.annotation = in.u32();
      if (in.failed()) return false;
      v.exception(r);
      return true;
    }
    case RecordType::Alloc: {
      AllocRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.thread = in.u32();
      r.stack = in.u32();
      r.class_name = in.u32();
      r.size = in.varint();
      r.interval = in.varint();
      if (!in.atEnd()) r.annotation = in.u32();
      if (!in.atEnd()) r.tag = in.varint();
      if (in.failed()) return false;
      v.alloc(r);
      return true;
    }
    case RecordType::ObjectFree: {
      ObjectFreeRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.tag = in.varint();
      if (in.failed()) return false;
      v.objectFree(r);
      return true;
    }
    case RecordType::ClassHistogram: {
      ClassHistogramRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.pause_ns = in.signedVarint();
      const uint64_t n = in.varint();
      if (in.failed() || n > in.remaining() / 3) return false;  // each row takes at least 3 bytes
      r.classes.resize(n);
      for (ClassCountEntry& c : r.classes) {
        c.stack = in.u32();
        c.instances = in.varint();
        c.bytes = in.varint();
      }
      if (in.failed()) return false;
      v.classHistogram(r);
      return true;
    }
    case RecordType::ThreadParent: {
      ThreadParentRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.thread = in.u32();
      r.stack = in.u32();
      r.child_java_id = in.signedVarint();
      if (in.failed()) return false;
      v.threadParent(r);
      return true;
    }
    case RecordType::Lock: {
      LockRecord r;
      r.time_ns = time + in.signedVarint();  // does not move the running time (writer.cpp)
      r.thread = in.u32();
      r.stack = in.u32();
      r.annotation = in.u32();
      r.duration_ns = in.signedVarint();
      // A kind this reader does not know is a wait: it blocked, whatever else it was.
      r.kind = in.u32() == static_cast<uint32_t>(WaitKind::Lock) ? WaitKind::Lock : WaitKind::Wait;
      r.lock_class = in.u32();
      if (!in.atEnd()) r.owner = in.u32();
      if (!in.atEnd()) r.owner_stack = in.u32();
      if (in.failed()) return false;
      v.lock(r);
      return true;
    }
    case RecordType::ThreadStart:
    case RecordType::ThreadEnd: {
      ThreadEventRecord r;
      r.time_ns = eventTime();
      r.thread = in.u32();
      if (in.failed()) return false;
      type == RecordType::ThreadStart ? v.threadStart(r) : v.threadEnd(r);
      return true;
    }
    case RecordType::Status: {
      StatusRecord r;
      r.time_ns = eventTime();
      r.cpu_load_permille = in.u32();
      r.gc_count = in.varint();
      r.gc_time_ns = in.varint();
      r.heap_used = in.varint();
      r.heap_committed = in.varint();
      r.live_threads = in.u32();
      if (!in.atEnd()) r.machine_cpu_permille_plus1 = in.u32();
      if (!in.atEnd()) r.cpus = in.u32();
      if (in.failed()) return false;
      v.status(r);
      return true;
    }
    case RecordType::Lost: {
      LostRecord r;
      r.time_ns = eventTime();
      r.reason = static_cast<LostReason>(in.u32());
      r.count = in.varint();
      if (in.failed()) return false;
      v.lost(r);
      return true;
    }
    case RecordType::Annotation: {
      AnnotationRecord r;
      r.id = in.u32();
      for (uint32_t& field : r.fields) field = in.u32();
      if (in.failed()) return false;
      v.annotation(r);
      return true;
    }
    case RecordType::Marker: {
      MarkerRecord r;
      r.time_ns = eventTime();
      r.thread = in.u32();
      const uint32_t kind = in.u32();
      r.name = in.u32();
      if (in.failed() || kind > static_cast<uint32_t>(MarkerKind::End)) return false;
      r.kind = static_cast<MarkerKind>(kind);
      v.marker(r);
      return true;
    }
    case RecordType::AnnotationChange: {
      AnnotationChangeRecord r;
      r.time_ns = eventTime();
      r.thread = in.u32();
      r.annotation = in.u32();
      if (in.failed()) return false;
      v.annotationChange(r);
      return true;
    }
    case RecordType::AgentWarning: {
      AgentWarningRecord r;
      r.time_ns = eventTime();
      r.text = in.bytes();
      if (in.failed()) return false;
      v.agentWarning(r);
      return true;
    }
    case RecordType::RecordingEnd: {
      RecordingEndRecord r;
      r.time_ns = eventTime();
      if (in.failed()) return false;
      v.end(r);
      return true;
    }
  }
  return false;
}

// One bit per known record type (1-7, 16-33): one test per record.
inline constexpr uint64_t kKnownTypes = ((uint64_t{1} << 8) - 2) | (((uint64_t{1} << 18) - 1) << 16);
static_assert(static_cast<uint64_t>(RecordType::SampleRun) == 33, "kKnownTypes ends at SampleRun");

inline bool isKnown(uint64_t type) { return type < 64 && ((kKnownTypes >> type) & 1) != 0; }

}  // namespace record_decoding

template <typename Visitor>
void RecordingReader::decodeRecords(const ChunkInfo& chunk, const unsigned char* data, size_t size, Visitor& visitor) {
  using record_decoding::decodeBody;
  using record_decoding::isKnown;
  ByteCursor in(data, size);
  const bool line_deltas = (header_.features & kFeatureLineDeltas) != 0;
  int64_t time = 0;
  size_t malformed = 0;
  uint64_t records = 0;
  while (!in.atEnd()) {
    const uint64_t type = in.varint();
    const std::string_view body = in.bytes();
    if (in.failed()) {
      warn("chunk at offset " + std::to_string(chunk.offset) + " ends inside a record; the rest of it was skipped");
      return;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(body.data());
    // A run counts its samples in the chunk's record count (the writer's): read its count.
    records += type == static_cast<uint64_t>(RecordType::SampleRun) ? ByteCursor(p, body.size()).varint() : 1;
    if (!isKnown(type)) {
      visitor.unknown(static_cast<uint32_t>(type), body);  // a newer writer's record: skip it
      continue;
    }
    ByteCursor record(p, body.size());
    if (!decodeBody(static_cast<RecordType>(type), record, time, stack_tree_, line_deltas, visitor)) ++malformed;
  }
  // The header's count is never used to size anything; a mismatch only says the file lies.
  if (records != chunk.record_count)
    warn("chunk at offset " + std::to_string(chunk.offset) + " claims " + std::to_string(chunk.record_count) +
         " records but holds " + std::to_string(records) + "; what it holds was read");
  if (malformed)
    warn(std::to_string(malformed) + " malformed record(s) in chunk at offset " + std::to_string(chunk.offset) + " were skipped");
}

template <typename Visitor>
bool RecordingReader::readChunkTyped(const ChunkInfo& chunk, Visitor& visitor) {
  const unsigned char* raw = loadChunk(chunk);
  if (!raw) return false;
  decodeRecords(chunk, raw, chunk.raw_size, visitor);
  return true;
}

}  // namespace stackscope::format

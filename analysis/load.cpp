#include "analysis/load.h"

#include <algorithm>
#include <atomic>

#include "analysis/event_decoder.h"
#include "analysis/map_loader.h"
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
// With several threads the chunks are cut into this many pieces per thread, which the threads
// take in turn: a thread that starts late or runs on a busier core takes fewer. With one run
// per thread the first, which also reads the map data, finished last; 16 pieces a thread
// shortened the slow runs of 50 M samples on 2 cores (docs/benchmarks.md, engine6).
constexpr size_t kPiecesPerThread = 16;

// Decodes the event chunks into the model: cut into contiguous pieces of about equal size, each
// decoded by one of the threads (one per usable CPU, each with its own reader) into its own
// region of the event table, then merged in chunk order, so the model is the one a sequential
// read builds. One thread decodes everything with the caller's reader.
void decodeEventChunks(const std::string& path, format::RecordingReader& reader, Recording& rec,
                       const std::vector<format::ChunkInfo>& chunks, size_t wanted_threads, DecodedEvents& totals) {
  // A piece's region holds its chunks' records. The counts come from the file, so each is
  // believed only as far as its chunk's decompressed size allows (a sample takes at least
  // kMinSampleBytes: a byte in each of a SampleRun's four columns): a hostile count of 2^32
  // must not become an allocation.
  constexpr size_t kMinSampleBytes = 4;
  const auto bound = [](const format::ChunkInfo& c) { return std::min<size_t>(c.record_count, c.raw_size / kMinSampleBytes); };
  uint64_t raw = 0;
  for (const format::ChunkInfo& c : chunks) raw += c.raw_size;
  const size_t worth = wanted_threads > 0 ? wanted_threads : std::min<uint64_t>(raw / kMinRawBytesPerThread, usableCpus());
  const size_t threads = std::clamp<size_t>(worth, 1, std::max<size_t>(chunks.size(), 1));
  const size_t wanted_pieces = threads == 1 ? 1 : std::min(threads * kPiecesPerThread, chunks.size());
  // Piece p holds chunks [starts[p], starts[p + 1]).
  std::vector<size_t> starts{0};
  uint64_t filled = 0;
  for (size_t i = 0; i < chunks.size() && starts.size() < wanted_pieces; ++i) {
    filled += chunks[i].raw_size;
    if (filled * wanted_pieces >= raw * starts.size()) starts.push_back(i + 1);
  }
  starts.push_back(chunks.size());
  const size_t pieces = starts.size() - 1;
  // Piece p's region is entries [regions[p], regions[p + 1]) of the table.
  std::vector<size_t> regions(pieces + 1, 0);
  size_t wanted = 0;
  for (size_t p = 0; p < pieces; ++p)
    for (size_t i = starts[p]; i < starts[p + 1]; ++i) {
      regions[p + 1] += bound(chunks[i]);
      wanted += bound(chunks[i]);
    }
  // Folded samples take no row: the few other events of a piece are kept apart (spilled) and
  // inserted in order, and the table is not sized for the samples it will not hold.
  const double share = rec.kinds_folded != 0 ? 0.0
                       : wanted > kMaxSizedEvents ? static_cast<double>(kMaxSizedEvents) / static_cast<double>(wanted)
                                                  : 1.0;
  for (size_t p = 0; p < pieces; ++p) regions[p + 1] = regions[p] + static_cast<size_t>(static_cast<double>(regions[p + 1]) * share);
  rec.events.resize(regions[pieces]);  // not written: each piece's thread writes its region
  std::vector<DecodedEvents> decoded(pieces);
  std::vector<std::vector<std::string>> warnings(pieces);
  std::vector<uint64_t> bytes(pieces, 0);
  // The caller's reader counts its own warnings and bytes; another reader's are kept per piece.
  const auto decodePiece = [&](size_t p, format::RecordingReader& from) {
    const size_t warned = from.warnings().size();
    const uint64_t read = from.bytesRead();
    EventDecoder decoder(rec, rec.window, rec.events, regions[p], regions[p + 1]);
    from.willRead(std::span(chunks).subspan(starts[p], starts[p + 1] - starts[p]));
    for (size_t i = starts[p]; i < starts[p + 1]; ++i) {
      decoder.expect(bound(chunks[i]));
      decoder.read(from, chunks[i]);
    }
    decoded[p] = decoder.take();
    if (&from == &reader) return;
    warnings[p].assign(from.warnings().begin() + static_cast<std::ptrdiff_t>(warned), from.warnings().end());
    bytes[p] = from.bytesRead() - read;
  };
  std::atomic<size_t> next_piece{0};
  runParts(threads, [&](size_t) {
    if (threads == 1) return decodePiece(0, reader);
    format::RecordingReader own(path);
    for (size_t p; (p = next_piece.fetch_add(1)) < pieces;) decodePiece(p, own);
  });
  for (size_t p = 0; p < pieces; ++p) {
    mergeEvents(rec, std::move(decoded[p]), totals);
    rec.warnings.insert(rec.warnings.end(), warnings[p].begin(), warnings[p].end());
    rec.bytes_read += bytes[p];
  }
}

}  // namespace

std::string agentWarningText(const format::AgentWarningRecord& warning) {
  return "the agent reported at " + formatDuration(warning.time_ns) + ": " + warning.text;
}

Recording loadRecording(const std::string& path, const TimeWindow& window, size_t threads, SampleRows rows) {
  format::RecordingReader reader(path);
  Recording recording;
  recording.window = window;
  if (rows == SampleRows::Folded) recording.kinds_folded = (1u << static_cast<unsigned>(EventKind::Cpu)) | (1u << static_cast<unsigned>(EventKind::Wall));
  MapLoader maps(recording);
  std::vector<format::ChunkInfo> event_chunks;
  for (const format::ChunkInfo& chunk : reader.plan(window.from_ns, window.to_ns)) {
    if (chunk.kind == format::ChunkKind::Map) reader.readChunk(chunk, maps);
    else event_chunks.push_back(chunk);
  }
  readEvents(path, reader, recording, maps, event_chunks, threads);
  return recording;
}

void readEvents(const std::string& path, format::RecordingReader& reader, Recording& recording, MapLoader& maps,
                const std::vector<format::ChunkInfo>& event_chunks, size_t threads) {
  const TimeWindow& window = recording.window;
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

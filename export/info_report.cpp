#include "export/info_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "common/duration.h"
#include "export/table.h"
#include "export/text_format.h"

namespace stackscope::exporting {

namespace {

using analysis::FileInspection;
using format::ChunkKind;

struct ChunkTotals {
  size_t map = 0;
  size_t event = 0;
  uint64_t compressed = 0;  // payloads plus chunk headers: what the chunks take in the file
  uint64_t raw = 0;
  int64_t events_start = std::numeric_limits<int64_t>::max();
  int64_t events_end = std::numeric_limits<int64_t>::min();
};

ChunkTotals totals(const FileInspection& in) {
  ChunkTotals t;
  for (const format::ChunkInfo& c : in.chunks) {
    t.compressed += c.payload_size;
    t.raw += c.raw_size;
    if (c.kind == ChunkKind::Map) {
      ++t.map;
    } else {
      ++t.event;
      t.events_start = std::min(t.events_start, c.start_ns);
      t.events_end = std::max(t.events_end, c.end_ns);
    }
  }
  if (t.event == 0) t.events_start = t.events_end = 0;
  return t;
}

std::vector<std::string> featureNames(uint32_t features) {
  std::vector<std::string> names;
  for (uint32_t bit = 0; bit < 32; ++bit) {
    if (!(features & (1u << bit))) continue;
    const uint32_t feature = 1u << bit;
    names.push_back(feature == format::kFeatureZstdChunks      ? "zstd_chunks"
                    : feature == format::kFeatureStackBranches ? "stack_branches"
                    : feature == format::kFeatureLaneChecksums ? "lane_checksums"
                    : feature == format::kFeatureSampleRuns    ? "sample_runs"
                    : feature == format::kFeatureLineDeltas    ? "line_deltas"
                                                               : fmt::format("bit_{}", bit));
  }
  return names;
}

double bytesPerSample(const FileInspection& in) {
  return in.samples ? static_cast<double>(in.file_size) / static_cast<double>(in.samples) : 0.0;
}

const char* kindName(ChunkKind kind) { return kind == ChunkKind::Map ? "map" : kind == ChunkKind::Event ? "event" : "other"; }

void writeChunkTable(std::ostream& out, const FileInspection& in) {
  TextTable table;
  for (const char* column : {"Offset", "Kind", "Compressed", "Raw", "Records", "Start", "End"})
    table.addColumn(column, std::string_view(column) == "Kind" ? TextTable::Align::Left : TextTable::Align::Right);
  for (const format::ChunkInfo& c : in.chunks) {
    const bool events = c.kind == ChunkKind::Event;
    table.addRow({std::to_string(c.offset), kindName(c.kind), std::to_string(c.payload_size), std::to_string(c.raw_size),
                  std::to_string(c.record_count), events ? formatDuration(c.start_ns) : "-",
                  events ? formatDuration(c.end_ns) : "-"});
  }
  out << '\n';
  table.write(out);
}

void writeStatusText(std::ostream& out, const analysis::StatusSummary& s) {
  if (s.count == 0) {
    writeField(out, "Status", "no status reports");
    return;
  }
  writeField(out, "Status", fmt::format("{} reports, {} to {}", s.count, formatDuration(s.first_ns), formatDuration(s.last_ns)));
  // A share of the whole machine: say of how many CPUs, or 12.5% reads as idle on 8 cores.
  const std::string cpus = s.cpus ? fmt::format(" ({} CPUs)", s.cpus) : std::string();
  writeField(out, "", fmt::format("process CPU mean {:.1f}%, max {:.1f}% of the whole machine{}", s.mean_cpu_load_pct,
                                  s.max_cpu_load_pct, cpus));
  if (s.machine_count)
    writeField(out, "", fmt::format("machine CPU (every process) mean {:.1f}%, max {:.1f}%", s.mean_machine_cpu_pct,
                                    s.max_machine_cpu_pct));
  writeField(out, "", fmt::format("heap used max {}, committed max {}", formatBytes(s.max_heap_used),
                                  formatBytes(s.max_heap_committed)));
  writeField(out, "", fmt::format("GC {} collections, {} in total", s.gc_count, formatDuration(static_cast<int64_t>(s.gc_time_ns))));
  writeField(out, "", fmt::format("live threads max {} (every report: report FILE --view status)", s.max_live_threads));
}

}  // namespace

void writeInfoText(std::ostream& out, const FileInspection& in, const InfoOptions& options) {
  const ChunkTotals t = totals(in);
  writeField(out, "File", fmt::format("{} ({} bytes)", options.file, in.file_size));
  const std::vector<std::string> features = featureNames(in.header.features);
  writeField(out, "Format", fmt::format("version {}, readable by version {} and later, features: {}", in.header.version,
                                        in.header.oldest_reader, features.empty() ? "none" : fmt::format("{}", fmt::join(features, ", "))));
  writeField(out, "Index", in.indexed ? "present" : "missing or damaged: chunks were found by scanning");
  if (in.has_info) {
    writeField(out, "Recording", describeRecording(in.info));
    writeField(out, "", fmt::format("status every {}, pid {}", formatDuration(in.info.status_interval_ns), in.info.pid));
    writeField(out, "JVM", in.info.jvm);
    writeField(out, "Options", in.info.options);
    writeField(out, "Debug info", fmt::format("between safepoints: {}", format::nonSafepointDebugName(in.info.non_safepoint_debug)));
    const std::vector<std::string> metrics = format::sampleMetricNames(in.info.sample_metrics);
    writeField(out, "Sample metrics", metrics.empty() ? "none" : fmt::format("{}", fmt::join(metrics, ", ")));
  } else {
    writeField(out, "Recording", "no recording info in the file");
  }
  writeField(out, "Finished", in.ended ? fmt::format("yes, after {}", formatDuration(in.end_ns))
                                       : fmt::format("no: the last readable event is at {}", formatDuration(in.end_ns)));
  writeField(out, "Chunks", fmt::format("{} ({} map, {} event), {} compressed, {} raw, events {} to {}", in.chunks.size(), t.map,
                                        t.event, formatBytes(t.compressed), formatBytes(t.raw), formatDuration(t.events_start),
                                        formatDuration(t.events_end)));
  std::vector<std::string> records;
  for (const analysis::RecordCount& r : in.records) records.push_back(fmt::format("{} {}", r.name, r.count));
  writeField(out, "Records", records.empty() ? "none" : fmt::format("{}", fmt::join(records, ", ")));
  // Weighted samples: cpu mode's stand for the CPU time since their thread's last, when the
  // kernel sent fewer signals than it owed; wall mode's for an idle thread's ticks.
  const std::string weighted =
      in.sample_records != in.samples ? fmt::format(" (as {} samples, weighted by the intervals each stands for)", in.sample_records) : "";
  writeField(out, "Samples",
             fmt::format("{} taken{}, {} lost, {:.1f} bytes per sample", in.samples, weighted, in.lost, bytesPerSample(in)));
  writeStatusText(out, in.status);
  for (const std::string& warning : in.warnings) writeField(out, "Warning", warning);
  if (options.list_chunks) writeChunkTable(out, in);
}

Json infoJson(const FileInspection& in, const InfoOptions& options) {
  const ChunkTotals t = totals(in);
  Json chunks = {{"count", in.chunks.size()},    {"map", t.map},
                 {"event", t.event},             {"compressed_bytes", t.compressed},
                 {"raw_bytes", t.raw},           {"events_start_ns", t.events_start},
                 {"events_end_ns", t.events_end}};
  if (options.list_chunks) {
    Json list = Json::array();
    for (const format::ChunkInfo& c : in.chunks)
      list.push_back({{"offset", c.offset},         {"kind", kindName(c.kind)}, {"compressed_bytes", c.payload_size},
                      {"raw_bytes", c.raw_size},     {"records", c.record_count}, {"start_ns", c.start_ns},
                      {"end_ns", c.end_ns}});
    chunks["list"] = std::move(list);
  }
  Json recording = nullptr;
  if (in.has_info)
    recording = {{"mode", in.info.mode},
                 {"interval_ns", in.info.interval_ns},
                 {"status_interval_ns", in.info.status_interval_ns},
                 {"start_epoch_ns", in.info.start_epoch_ns},
                 {"pid", in.info.pid},
                 {"jvm", in.info.jvm},
                 {"options", in.info.options},
                 {"non_safepoint_debug", format::nonSafepointDebugName(in.info.non_safepoint_debug)},
                 {"sample_metrics", format::sampleMetricNames(in.info.sample_metrics)}};
  Json records = Json::object();
  for (const analysis::RecordCount& r : in.records) records[r.name] = r.count;
  const analysis::StatusSummary& s = in.status;
  return Json{{"file", options.file},
              {"file_size", in.file_size},
              {"format",
               {{"version", in.header.version},
                {"oldest_reader", in.header.oldest_reader},
                {"features", in.header.features},
                {"feature_names", featureNames(in.header.features)}}},
              {"indexed", in.indexed},
              {"recording", recording},
              {"finished", in.ended},
              {"duration_ns", in.end_ns},
              {"chunks", chunks},
              {"records", records},
              {"samples", in.samples},
              {"sample_records", in.sample_records},
              {"lost", in.lost},
              {"bytes_per_sample", bytesPerSample(in)},
              {"status",
               {{"count", s.count},
                {"first_ns", s.first_ns},
                {"last_ns", s.last_ns},
                {"cpu_load_mean_pct", s.mean_cpu_load_pct},
                {"cpu_load_max_pct", s.max_cpu_load_pct},
                {"heap_used_max", s.max_heap_used},
                {"heap_committed_max", s.max_heap_committed},
                {"gc_count", s.gc_count},
                {"gc_time_ns", s.gc_time_ns},
                {"live_threads_max", s.max_live_threads},
                {"cpus", s.cpus ? Json(s.cpus) : Json(nullptr)},
                {"machine_cpu_mean_pct", s.machine_count ? Json(s.mean_machine_cpu_pct) : Json(nullptr)},
                {"machine_cpu_max_pct", s.machine_count ? Json(s.max_machine_cpu_pct) : Json(nullptr)}}},
              {"warnings", in.warnings}};
}

}  // namespace stackscope::exporting

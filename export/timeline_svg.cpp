#include "export/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "common/duration.h"
#include "export/text_format.h"
#include "export/xml_text.h"

namespace stackscope::exporting {

namespace {

constexpr double kWidth = 1200, kLeft = 130, kRight = 20, kTop = 30, kTrack = 110, kGap = 36, kBandRow = 18;
constexpr const char* kColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

using analysis::StatusRow;

// A rate in the metric's unit per second of recording, for people: "250/s", "1.5 MiB/s", and
// for time "1.25" (seconds of the metric per second: threads busy at once).
std::string rateText(double per_second, analysis::MetricUnit unit) {
  switch (unit) {
    case analysis::MetricUnit::Bytes: return formatBytes(static_cast<uint64_t>(std::llround(per_second))) + "/s";
    case analysis::MetricUnit::Nanoseconds: return fmt::format("{:.2f} s/s", per_second / 1e9);
    case analysis::MetricUnit::Count: break;
  }
  return fmt::format("{:.0f}/s", per_second);
}

class Svg {
 public:
  Svg(std::ostream& out, const TimelinePicture& p) : out_(out), p_(p) {}

  double x(int64_t t) const {
    const double span = static_cast<double>(std::max<int64_t>(p_.to_ns - p_.from_ns, 1));
    const double clipped = static_cast<double>(std::clamp(t, p_.from_ns, p_.to_ns) - p_.from_ns);
    return kLeft + clipped / span * (kWidth - kLeft - kRight);
  }
  std::ostream& out() { return out_; }

  // A track's frame, its name on the left and its scale's top value.
  void frame(double top, const std::string& name, const std::string& scale) {
    out_ << fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#fafafa" stroke="#ccc"/>)", kLeft, top,
                        kWidth - kLeft - kRight, kTrack)
         << '\n'
         << fmt::format(R"(<text x="{}" y="{}" text-anchor="end" font-weight="bold">{}</text>)", kLeft - 8, top + 14,
                        xmlEscaped(name))
         << '\n'
         << fmt::format(R"(<text x="{}" y="{}" text-anchor="end" fill="#666">{}</text>)", kLeft - 8, top + 30,
                        xmlEscaped(scale))
         << '\n';
  }
  // A polyline of steps: value[i] holds from times[i] to times[i + 1], scaled to the track.
  void steps(double top, const std::vector<std::pair<int64_t, double>>& points, int64_t end, double max,
             const char* colour, const std::string& title) {
    if (points.empty() || max <= 0) return;
    out_ << R"(<polyline fill="none" stroke-width="1.5" stroke=")" << colour << R"(" points=")";
    for (size_t i = 0; i < points.size(); ++i) {
      const double y = top + kTrack - points[i].second / max * kTrack;
      const int64_t until = i + 1 < points.size() ? points[i + 1].first : end;
      out_ << fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x(points[i].first), y, x(until), y);
    }
    out_ << R"("><title>)" << xmlEscaped(title) << "</title></polyline>\n";
  }

 private:
  std::ostream& out_;
  const TimelinePicture& p_;
};

// Seconds of the bin inside [from, to): the last bin may be cut short by the selection's end.
double binSeconds(const TimelinePicture& p, size_t bin) {
  const int64_t start = p.events.from_ns + static_cast<int64_t>(bin) * p.events.bin_ns;
  const int64_t len = std::min(start + p.events.bin_ns, p.to_ns) - std::max(start, p.from_ns);
  return static_cast<double>(std::max<int64_t>(len, 1)) / 1e9;
}

void eventsTrack(Svg& svg, const TimelinePicture& p, double top) {
  const analysis::Timeline& t = p.events;
  std::vector<double> stacked(t.bins, 0.0);
  for (const auto& s : t.series)
    for (size_t b = 0; b < t.bins; ++b) stacked[b] += static_cast<double>(s.values[b]) / binSeconds(p, b);
  const double max = stacked.empty() ? 0 : *std::max_element(stacked.begin(), stacked.end());
  svg.frame(top, fmt::format("{} {}", analysis::eventKindName(p.kind), p.metric->name),
            "max " + rateText(max, p.metric->unit));
  svg.out() << R"(<g id="events">)" << '\n';
  std::vector<double> below(t.bins, 0.0);
  for (size_t i = 0; i < t.series.size() && max > 0; ++i) {
    const auto& s = t.series[i];
    std::string upper, lower;
    std::vector<double> above(below);
    for (size_t b = 0; b < t.bins; ++b) above[b] += static_cast<double>(s.values[b]) / binSeconds(p, b);
    for (size_t b = 0; b < t.bins; ++b) {
      const int64_t start = t.from_ns + static_cast<int64_t>(b) * t.bin_ns;
      const double y = top + kTrack - above[b] / max * kTrack;
      upper += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", svg.x(start), y, svg.x(start + t.bin_ns), y);
    }
    for (size_t b = t.bins; b-- > 0;) {
      const int64_t start = t.from_ns + static_cast<int64_t>(b) * t.bin_ns;
      const double y = top + kTrack - below[b] / max * kTrack;
      lower += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", svg.x(start + t.bin_ns), y, svg.x(start), y);
    }
    const char* colour = kColours[i % std::size(kColours)];
    svg.out() << R"(<polygon data-series=")" << xmlEscaped(s.name) << R"(" fill=")" << colour << R"(" points=")" << upper
              << lower << R"("><title>)" << xmlEscaped(s.name) << "</title></polygon>\n";
    // The legend, above the track.
    svg.out() << fmt::format(R"(<rect x="{:.0f}" y="{}" width="10" height="10" fill="{}"/>)", kLeft + 130.0 * static_cast<double>(i),
                             top - 14, colour)
              << fmt::format(R"(<text x="{:.0f}" y="{}">{}</text>)", kLeft + 130.0 * static_cast<double>(i) + 14, top - 5,
                             xmlEscaped(s.name.substr(0, 18)))
              << '\n';
    below = std::move(above);
  }
  svg.out() << "</g>\n";
}

void cpuTrack(Svg& svg, const TimelinePicture& p, double top) {
  svg.frame(top, "CPU load", "100% of machine");
  std::vector<std::pair<int64_t, double>> process, machine;
  // A report's load is that of the interval before it: the step starts at the previous report.
  int64_t previous = p.from_ns;
  for (const StatusRow& row : p.status) {
    process.emplace_back(previous, row.process_cpu_pct_of_machine);
    if (row.machine_cpu_pct) machine.emplace_back(previous, *row.machine_cpu_pct);
    previous = row.time_ns;
  }
  svg.out() << R"(<g id="cpu">)" << '\n';
  svg.steps(top, machine, previous, 100, "#bab0ac", "machine CPU load (% of all cores)");
  svg.steps(top, process, previous, 100, "#e15759", "process CPU load (% of all cores)");
  svg.out() << "</g>\n";
}

void heapTrack(Svg& svg, const TimelinePicture& p, double top) {
  std::vector<std::pair<int64_t, double>> used, committed;
  double max = 0;
  for (const StatusRow& row : p.status) {
    used.emplace_back(row.time_ns, static_cast<double>(row.heap_used));
    committed.emplace_back(row.time_ns, static_cast<double>(row.heap_committed));
    max = std::max({max, static_cast<double>(row.heap_used), static_cast<double>(row.heap_committed)});
  }
  svg.frame(top, "heap", "max " + formatBytes(static_cast<uint64_t>(max)));
  svg.out() << R"(<g id="heap">)" << '\n';
  const int64_t end = p.status.empty() ? p.to_ns : std::min(p.to_ns, p.status.back().time_ns);
  svg.steps(top, committed, end, max, "#4e79a7", "heap committed");
  svg.steps(top, used, end, max, "#59a14f", "heap used");
  svg.out() << "</g>\n";
}

// Each pause of the gc trace as a bar as tall as it is long (the longest fills the track);
// without the trace, the share of each status interval spent in GC.
void gcTrack(Svg& svg, const TimelinePicture& p, double top) {
  int64_t longest = 1;
  for (const auto& pause : p.pauses) longest = std::max(longest, pause.duration_ns);
  if (p.pauses.empty()) svg.frame(top, "GC time", "100% of the interval");
  else svg.frame(top, "GC pauses", "longest " + formatDuration(longest));
  svg.out() << R"(<g id="gc">)" << '\n';
  if (!p.pauses.empty()) {
    for (const auto& pause : p.pauses) {
      const double h = static_cast<double>(pause.duration_ns) / static_cast<double>(longest) * kTrack;
      const double x0 = svg.x(pause.time_ns), w = std::max(1.0, svg.x(pause.time_ns + pause.duration_ns) - x0);
      svg.out() << fmt::format(R"(<rect class="pause" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#f28e2b">)", x0,
                               top + kTrack - h, w, h)
                << "<title>" << xmlEscaped(pause.collector) << ' ' << formatDuration(pause.duration_ns) << " at "
                << formatDuration(pause.time_ns) << "</title></rect>\n";
    }
  } else {
    for (size_t i = 1; i < p.status.size(); ++i) {
      const StatusRow &a = p.status[i - 1], &b = p.status[i];
      const int64_t interval = b.time_ns - a.time_ns;
      if (interval <= 0 || b.gc_time_ns <= a.gc_time_ns) continue;
      const double share = std::min(1.0, static_cast<double>(b.gc_time_ns - a.gc_time_ns) / static_cast<double>(interval));
      svg.out() << fmt::format(R"(<rect class="gc-share" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#f28e2b">)",
                               svg.x(a.time_ns), top + kTrack - share * kTrack, svg.x(b.time_ns) - svg.x(a.time_ns),
                               share * kTrack)
                << fmt::format("<title>{:.1f}% in GC ({} collections)</title></rect>\n", share * 100, b.gc_count - a.gc_count);
    }
  }
  svg.out() << "</g>\n";
}

// The class histograms' heap walks: each a bar as tall as the VM stood still for it.
void heapWalkTrack(Svg& svg, const TimelinePicture& p, double top) {
  int64_t longest = 1;
  for (const auto& walk : p.heap_walks) longest = std::max(longest, walk.duration_ns);
  svg.frame(top, "class histograms", "longest pause " + formatDuration(longest));
  svg.out() << R"(<g id="histograms">)" << '\n';
  for (const auto& walk : p.heap_walks) {
    const double h = static_cast<double>(walk.duration_ns) / static_cast<double>(longest) * kTrack;
    const double x0 = svg.x(walk.time_ns), w = std::max(1.0, svg.x(walk.time_ns + walk.duration_ns) - x0);
    svg.out() << fmt::format(R"(<rect class="pause" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#9c755f">)", x0,
                             top + kTrack - h, w, h)
              << "<title>class histogram: the VM stopped " << formatDuration(walk.duration_ns) << " at "
              << formatDuration(walk.time_ns) << "</title></rect>\n";
  }
  svg.out() << "</g>\n";
}

void snapshotRows(Svg& svg, const TimelinePicture& p, double top) {
  svg.out() << R"(<g id="snapshots">)" << '\n';
  for (size_t i = 0; i < p.snapshots.size(); ++i) {
    const auto& band = p.snapshots[i];
    const double y = top + static_cast<double>(i) * kBandRow;
    svg.out() << fmt::format(R"(<text x="{}" y="{}" text-anchor="end">{}</text>)", kLeft - 8, y + 12, xmlEscaped(band.name)) << '\n';
    for (const auto& w : band.intervals) {
      const int64_t to = std::min(w.to_ns, p.to_ns);
      if (to <= p.from_ns || w.from_ns >= p.to_ns) continue;
      svg.out() << fmt::format(R"(<rect class="snapshot" x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="#b07aa1" opacity="0.6">)",
                               svg.x(w.from_ns), y, std::max(1.0, svg.x(to) - svg.x(w.from_ns)), kBandRow - 4)
                << "<title>" << xmlEscaped(band.name) << ' ' << formatDuration(w.from_ns) << ".." << formatDuration(to)
                << "</title></rect>\n";
    }
  }
  svg.out() << "</g>\n";
}

// The time axis under the tracks, and the point markers across all of them.
void axisAndMarkers(Svg& svg, const TimelinePicture& p, double tracks_bottom) {
  const int64_t step = analysis::timelineBinWidth(p.from_ns, p.to_ns, 10);
  svg.out() << R"(<g id="axis">)" << '\n';
  for (int64_t t = (p.from_ns + step - 1) / step * step; t <= p.to_ns; t += step)
    svg.out() << fmt::format(R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#999"/><text x="{0:.1f}" y="{3}" text-anchor="middle">{4}</text>)",
                             svg.x(t), tracks_bottom, tracks_bottom + 5, tracks_bottom + 18, formatDuration(t))
              << '\n';
  svg.out() << "</g>\n" << R"(<g id="markers">)" << '\n';
  for (const auto& m : p.points) {
    if (m.time_ns < p.from_ns || m.time_ns > p.to_ns) continue;
    svg.out() << fmt::format(R"(<line class="marker" x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#333" stroke-dasharray="4,3"><title>{3} at {4}</title></line>)",
                             svg.x(m.time_ns), kTop, tracks_bottom, xmlEscaped(m.name), formatDuration(m.time_ns))
              << fmt::format(R"(<text x="{:.1f}" y="{}" font-size="10">{}</text>)", svg.x(m.time_ns) + 2, kTop - 18, xmlEscaped(m.name))
              << '\n';
  }
  svg.out() << "</g>\n";
}

}  // namespace

void writeTimelineSvg(std::ostream& out, const TimelinePicture& p) {
  const bool status = !p.status.empty();
  const size_t tracks = 1 + (status ? 2 : 0) + ((status || !p.pauses.empty()) ? 1 : 0) + (p.heap_walks.empty() ? 0 : 1);
  const double tracks_bottom = kTop + 20 + static_cast<double>(tracks) * (kTrack + kGap) - kGap;
  const double height = tracks_bottom + 30 + static_cast<double>(p.snapshots.size()) * kBandRow + 10;
  out << fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1:.0f}" viewBox="0 0 {0} {1:.0f}" font-family="sans-serif" font-size="11">)",
                     kWidth, height)
      << "\n<title>" << xmlEscaped(p.title) << " timeline</title>\n";
  Svg svg(out, p);
  double top = kTop + 20;
  eventsTrack(svg, p, top);
  top += kTrack + kGap;
  if (status) {
    cpuTrack(svg, p, top);
    top += kTrack + kGap;
    heapTrack(svg, p, top);
    top += kTrack + kGap;
  }
  if (status || !p.pauses.empty()) {
    gcTrack(svg, p, top);
    top += kTrack + kGap;
  }
  if (!p.heap_walks.empty()) heapWalkTrack(svg, p, top);
  axisAndMarkers(svg, p, tracks_bottom);
  snapshotRows(svg, p, tracks_bottom + 30);
  out << "</svg>\n";
}

void writeTimelineHtml(std::ostream& out, const TimelinePicture& p) {
  out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << xmlEscaped(p.title)
      << " timeline</title></head>\n<body style=\"margin:8px;font-family:sans-serif\">\n";
  writeTimelineSvg(out, p);
  out << "</body></html>\n";
}

Json timelineJson(const TimelinePicture& p) {
  Json series = Json::array();
  for (const auto& s : p.events.series) series.push_back({{"name", s.name}, {"total", s.total}, {"values", s.values}});
  Json status = Json::array();
  for (const StatusRow& row : p.status) {
    Json r = {{"time_ns", row.time_ns}, {"process_cpu_pct", row.process_cpu_pct_of_machine}};
    r["machine_cpu_pct"] = row.machine_cpu_pct ? Json(*row.machine_cpu_pct) : Json(nullptr);
    r.update({{"heap_used", row.heap_used}, {"heap_committed", row.heap_committed}, {"gc_count", row.gc_count},
              {"gc_time_ns", row.gc_time_ns}});
    status.push_back(std::move(r));
  }
  Json pauses = Json::array();
  for (const auto& pause : p.pauses)
    pauses.push_back({{"time_ns", pause.time_ns}, {"duration_ns", pause.duration_ns}, {"collector", pause.collector}});
  Json heap_walks = Json::array();
  for (const auto& walk : p.heap_walks) heap_walks.push_back({{"time_ns", walk.time_ns}, {"pause_ns", walk.duration_ns}});
  Json snapshots = Json::array();
  for (const auto& band : p.snapshots) {
    Json intervals = Json::array();
    for (const auto& w : band.intervals)
      intervals.push_back({{"from_ns", w.from_ns}, {"to_ns", w.to_ns == analysis::TimeWindow::kOpen ? Json(nullptr) : Json(w.to_ns)}});
    snapshots.push_back({{"name", band.name}, {"intervals", std::move(intervals)}});
  }
  Json markers = Json::array();
  for (const auto& m : p.points) markers.push_back({{"name", m.name}, {"time_ns", m.time_ns}});
  return {{"file", p.title},
          {"from_ns", p.from_ns},
          {"to_ns", p.to_ns},
          {"event", analysis::eventKindName(p.kind)},
          {"metric", p.metric->name},
          {"unit", analysis::unitName(p.metric->unit)},
          {"grouped_by", p.grouping == analysis::TimelineGrouping::State ? "state" : "thread"},
          {"bin_ns", p.events.bin_ns},
          {"bin_from_ns", p.events.from_ns},
          {"series", std::move(series)},
          {"status", std::move(status)},
          {"gc_pauses", std::move(pauses)},
          {"histogram_pauses", std::move(heap_walks)},
          {"snapshots", std::move(snapshots)},
          {"markers", std::move(markers)}};
}

}  // namespace stackscope::exporting

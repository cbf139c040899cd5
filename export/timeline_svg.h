// The timeline picture: on one time axis, the selected events per second (stacked by thread
// state or by thread), the process's and the machine's CPU load, the heap and the garbage
// collections from the status reports, the markers and the snapshots. SVG (Graphviz is not
// needed: it is a chart, not a graph), or the same SVG in a self-contained HTML page; and the
// same data as JSON.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/snapshots.h"
#include "analysis/status_series.h"
#include "analysis/timeline.h"
#include "export/report_header.h"

namespace stackscope::exporting {

struct TimelinePicture {
  std::string title;  // the recording's file name
  int64_t from_ns = 0, to_ns = 0;
  analysis::EventKind kind = analysis::EventKind::Cpu;
  const analysis::MetricInfo* metric = nullptr;
  analysis::TimelineGrouping grouping = analysis::TimelineGrouping::State;
  analysis::Timeline events;
  std::vector<analysis::StatusRow> status;
  struct Pause {
    int64_t time_ns = 0;
    int64_t duration_ns = 0;
    std::string collector;
  };
  std::vector<Pause> pauses;  // with the gc trace; without, the status reports' GC time
  std::vector<Pause> heap_walks;  // the class histograms' pauses (histo=), when any
  struct Band {
    std::string name;
    std::vector<analysis::TimeWindow> intervals;
  };
  std::vector<Band> snapshots;                  // saved snapshots and begin/end marker pairs
  std::vector<analysis::MarkerEvent> points;    // point markers
};

void writeTimelineSvg(std::ostream& out, const TimelinePicture& picture);
void writeTimelineHtml(std::ostream& out, const TimelinePicture& picture);
Json timelineJson(const TimelinePicture& picture);

}  // namespace stackscope::exporting

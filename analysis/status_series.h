// The status reports of a selection as a time series: what `report --view status` lists.
// Status reports are process-wide (the JVM's CPU, GC, heap and threads), so only time
// narrows them: a snapshot's intervals, --from/--to.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/selection.h"

namespace stackscope::analysis {

struct StatusRow {
  int64_t time_ns = 0;
  // The process's CPU time over the interval before this report, as a share of the whole
  // machine (100 = every CPU busy with this process) and in CPUs' worth (2.0 = two cores
  // busy); the second needs the CPU count, recorded since the machine load was.
  double process_cpu_pct_of_machine = 0;
  std::optional<double> process_cpu_cores;
  std::optional<uint32_t> cpus;
  std::optional<double> machine_cpu_pct;  // every process on the machine, /proc/stat
  uint64_t gc_count = 0;                  // cumulative since the JVM started
  uint64_t gc_time_ns = 0;                // cumulative
  uint64_t heap_used = 0;                 // bytes
  uint64_t heap_committed = 0;            // bytes
  uint32_t live_threads = 0;              // Java threads but the agent's own
  // With the gc trace: its collections (in gc time) that started after the report before this
  // one up to this one, among the events `keep` selects; unset without the trace.
  std::optional<EventAggregate> gc_pauses;
};

// The reports of `recording` (loaded for the selection's hull) inside the selection's
// intervals, in time order, with the gc events that `keep` selects (the selection's predicate).
std::vector<StatusRow> statusSeries(const Recording& recording, const Selection& selection, const EventPredicate& keep);

}  // namespace stackscope::analysis

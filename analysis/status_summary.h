// A summary of the periodic status reports (CPU load, GC, heap, threads) of a recording.
#pragma once

#include <cstdint>
#include <span>

#include "format/records.h"

namespace stackscope::analysis {

struct StatusSummary {
  uint64_t count = 0;
  int64_t first_ns = 0;
  int64_t last_ns = 0;
  uint64_t max_heap_used = 0;
  uint64_t max_heap_committed = 0;
  uint64_t gc_count = 0;    // cumulative, as of the last report
  uint64_t gc_time_ns = 0;  // cumulative, as of the last report
  double mean_cpu_load_pct = 0;  // process CPU, 100 = all cores busy
  double max_cpu_load_pct = 0;
  uint32_t cpus = 0;             // the CPUs those are a share of; 0 = not recorded
  uint64_t machine_count = 0;    // reports with a machine CPU load (optional field, absent from older files)
  double mean_machine_cpu_pct = 0;  // every process on the machine, 100 = all cores busy
  double max_machine_cpu_pct = 0;
  uint32_t max_live_threads = 0;
};

StatusSummary summarizeStatus(std::span<const format::StatusRecord> reports);

}  // namespace stackscope::analysis

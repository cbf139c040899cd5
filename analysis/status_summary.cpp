#include "analysis/status_summary.h"

#include <algorithm>

namespace stackscope::analysis {

StatusSummary summarizeStatus(std::span<const format::StatusRecord> reports) {
  StatusSummary s;
  if (reports.empty()) return s;
  const format::StatusRecord* last = &reports.front();
  s.first_ns = reports.front().time_ns;
  double load_sum = 0, machine_sum = 0;
  for (const format::StatusRecord& r : reports) {
    ++s.count;
    s.first_ns = std::min(s.first_ns, r.time_ns);
    if (r.time_ns >= last->time_ns) last = &r;  // reports may arrive slightly out of order
    s.max_heap_used = std::max(s.max_heap_used, r.heap_used);
    s.max_heap_committed = std::max(s.max_heap_committed, r.heap_committed);
    s.max_live_threads = std::max(s.max_live_threads, r.live_threads);
    const double load = r.cpu_load_permille / 10.0;
    load_sum += load;
    s.max_cpu_load_pct = std::max(s.max_cpu_load_pct, load);
    if (r.cpus > 0) s.cpus = r.cpus;
    if (r.machine_cpu_permille_plus1 > 0) {
      const double machine = (r.machine_cpu_permille_plus1 - 1) / 10.0;
      ++s.machine_count;
      machine_sum += machine;
      s.max_machine_cpu_pct = std::max(s.max_machine_cpu_pct, machine);
    }
  }
  if (s.machine_count) s.mean_machine_cpu_pct = machine_sum / static_cast<double>(s.machine_count);
  s.last_ns = last->time_ns;
  s.gc_count = last->gc_count;
  s.gc_time_ns = last->gc_time_ns;
  s.mean_cpu_load_pct = load_sum / static_cast<double>(s.count);
  return s;
}

}  // namespace stackscope::analysis

#include "analysis/parallel.h"

#include <sched.h>

#include <algorithm>
#include <exception>
#include <thread>
#include <vector>

namespace stackscope::analysis {

size_t usableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<size_t>(std::max(1, CPU_COUNT(&set)));
}

void runParts(size_t parts, const std::function<void(size_t)>& part) {
  std::vector<std::exception_ptr> failures(parts);
  const auto run = [&](size_t p) {
    try {
      part(p);
    } catch (...) {
      failures[p] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  for (size_t p = 1; p < parts; ++p) workers.emplace_back(run, p);
  if (parts > 0) run(0);
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
}

}  // namespace stackscope::analysis

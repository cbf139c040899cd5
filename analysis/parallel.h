// The engine's passes over many events run on several threads: loading (pieces of the event
// chunks, taken in turn by the threads) and the per-stack sums (a part of the event table per thread).
#pragma once

#include <cstddef>
#include <functional>

namespace stackscope::analysis {

// CPUs this process may run on (taskset and cgroups narrow it), at least 1.
size_t usableCpus();

// Calls part(p) for every p in [0, parts): part 0 on the calling thread, each other on a
// thread of its own. Returns once every part is done, rethrowing the first failure in part
// order.
void runParts(size_t parts, const std::function<void(size_t)>& part);

}  // namespace stackscope::analysis

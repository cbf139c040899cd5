// Measures what the native room costs on a running JVM (not a test: its figures are in
// docs/benchmarks.md). From outside: symbolizer_cost PID [ADDRESSES]. From inside, as the
// agent does it (its own process, from a thread of its own), the same code built as
// libsymbolizer_cost_preload.so: LD_PRELOAD=.../libsymbolizer_cost_preload.so java ...
// measures 3 s after the JVM starts and prints to stderr.
// Prints the time to make a Symbolizer for the process, to symbolize the first address in
// libjvm.so (which loads its symbol table), then ADDRESSES (default 20000) distinct addresses
// spread over libjvm.so's code, then the same again (cached); the memory the symbolizer took;
// the share of addresses named; a few names; the same for libc.so.6 (stripped: its names come
// from libc6-dbg's debug file when installed, else its .eh_frame groups addresses by
// function); and the time to list the threads with their CPU.
#include <pthread.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "native/process_threads.h"
#include "native/symbolizer.h"

namespace native = stackscope::native;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

long residentKb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

// The executable mapping of `module` ("/libjvm.so") in the process, [start, end).
bool moduleCode(pid_t pid, const char* module, unsigned long& start, unsigned long& end) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  for (std::string line; std::getline(maps, line);) {
    char perms[8] = {};
    if (line.find(module) != std::string::npos &&
        std::sscanf(line.c_str(), "%lx-%lx %7s", &start, &end, perms) == 3 && perms[2] == 'x')
      return true;
  }
  return false;
}

int measure(pid_t pid, int count, FILE* out) {
  unsigned long code_start = 0, code_end = 0;
  if (count <= 0 || !moduleCode(pid, "/libjvm.so", code_start, code_end)) {
    std::fprintf(stderr, "symbolizer_cost: no libjvm.so code in process %d\n", static_cast<int>(pid));
    return 1;
  }

  long rss_before = residentKb();
  Clock::time_point start = Clock::now();
  native::Symbolizer symbolizer(pid);
  double create_ms = msSince(start);
  if (!symbolizer.ok()) {
    std::fprintf(stderr, "symbolizer_cost: %s\n", symbolizer.error().c_str());
    return 1;
  }

  start = Clock::now();
  native::NativeSymbol first = symbolizer.symbolize(code_start + (code_end - code_start) / 2);
  double first_ms = msSince(start);

  std::vector<uint64_t> pcs;
  uint64_t step = (code_end - code_start) / static_cast<uint64_t>(count);
  for (int i = 0; i < count; i++) pcs.push_back(code_start + 1 + static_cast<uint64_t>(i) * step);
  int named = 0;
  start = Clock::now();
  for (uint64_t pc : pcs) named += symbolizer.symbolize(pc).function.empty() ? 0 : 1;
  double distinct_ms = msSince(start);
  start = Clock::now();
  for (uint64_t pc : pcs) symbolizer.symbolize(pc);
  double cached_ms = msSince(start);
  long rss_after = residentKb();

  unsigned long libc_start = 0, libc_end = 0;
  double libc_first_ms = 0, libc_distinct_ms = 0;
  int libc_named = 0, libc_grouped = 0;
  native::NativeSymbol libc_first;
  if (moduleCode(pid, "/libc.so.6", libc_start, libc_end)) {
    start = Clock::now();
    libc_first = symbolizer.symbolize(libc_start + (libc_end - libc_start) / 2);
    libc_first_ms = msSince(start);
    const uint64_t libc_step = (libc_end - libc_start) / static_cast<uint64_t>(count);
    start = Clock::now();
    for (int i = 0; i < count; i++) {
      const native::NativeSymbol symbol = symbolizer.symbolize(libc_start + 1 + static_cast<uint64_t>(i) * libc_step);
      libc_named += symbol.function.empty() ? 0 : 1;
      libc_grouped += symbol.function_start_known ? 1 : 0;
    }
    libc_distinct_ms = msSince(start);
  }

  start = Clock::now();
  std::vector<native::ProcessThread> threads = native::listThreads(pid);
  int64_t total_cpu_ns = 0;
  for (const native::ProcessThread& thread : threads) {
    int64_t cpu = native::threadCpuTimeNs(pid, thread.tid);
    if (cpu > 0) total_cpu_ns += cpu;
  }
  double threads_ms = msSince(start);

  std::fprintf(out, "create: %.2f ms\n", create_ms);
  std::fprintf(out, "first libjvm.so address (loads its symbol table): %.2f ms -> %s\n", first_ms,
              native::display(first).c_str());
  std::fprintf(out, "%d distinct libjvm.so addresses: %.3f us each, %d named (%.1f%%)\n", count,
              distinct_ms * 1000 / count, named, 100.0 * named / count);
  std::fprintf(out, "the same again, cached: %.3f us each\n", cached_ms * 1000 / count);
  std::fprintf(out, "memory: %ld kB more resident\n", rss_after - rss_before);
  std::fprintf(out, "first libc.so.6 address (loads its symbols): %.2f ms -> %s\n", libc_first_ms,
              native::display(libc_first).c_str());
  std::fprintf(out, "%d distinct libc.so.6 addresses: %.3f us each, %d named, %d in a known function (%.1f%%)\n",
              count, libc_distinct_ms * 1000 / count, libc_named, libc_grouped, 100.0 * libc_grouped / count);
  std::fprintf(out, "listThreads + threadCpuTimeNs of %zu threads: %.2f ms (their CPU: %.0f ms)\n",
              threads.size(), threads_ms, total_cpu_ns / 1e6);
  for (int i = 0; i < count; i += count / 8) std::fprintf(out, "  %s\n", native::display(symbolizer.symbolize(pcs[i])).c_str());
  for (const native::ProcessThread& thread : threads)
    if (thread.name.find("GC") != std::string::npos || thread.name.find("Compiler") != std::string::npos ||
        thread.name == "VM Thread")
      std::fprintf(out, "  thread %d '%s' cpu %.0f ms\n", static_cast<int>(thread.tid), thread.name.c_str(),
                  native::threadCpuTimeNs(pid, thread.tid) / 1e6);
  return 0;
}

}  // namespace

#ifdef SYMBOLIZER_COST_PRELOAD
namespace {
void* measureInside(void*) {
  sleep(3);  // the JVM is up, libjvm.so mapped
  measure(getpid(), 20000, stderr);
  return nullptr;
}
__attribute__((constructor)) void startMeasuring() {
  pthread_t thread;
  if (pthread_create(&thread, nullptr, measureInside, nullptr) == 0) pthread_detach(thread);
}
}  // namespace
#else
int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: symbolizer_cost PID [ADDRESSES]\n");
    return 1;
  }
  return measure(static_cast<pid_t>(std::atoi(argv[1])), argc > 2 ? std::atoi(argv[2]) : 20000, stdout);
}
#endif

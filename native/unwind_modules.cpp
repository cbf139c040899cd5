#include "native/unwind_modules.h"

#include <elf.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <vector>

namespace stackscope::native {

namespace {

std::mutex g_refresh_mutex;
std::atomic<const UnwindModules*> g_published{nullptr};
FrameRuleCache g_rule_cache;  // shared by the published tables, each under its generation
uint64_t g_generation = 0;
bool g_read = false;
unsigned long long g_loads = 0, g_unloads = 0;  // the loader's counts at the last read

struct LoaderCounts {
  bool known = false;
  unsigned long long loads = 0, unloads = 0;
};

// dlpi_adds and dlpi_subs, from the first module (they are the same in every one).
LoaderCounts loaderCounts() {
  LoaderCounts counts;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* data) {
        auto& found = *static_cast<LoaderCounts*>(data);
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          found = {true, info->dlpi_adds, info->dlpi_subs};
        }
        return 1;
      },
      &counts);
  return counts;
}

// A module's tables: the loaded segment that holds its .eh_frame_hdr (.eh_frame lies in the
// same read-only segment, as every linker lays them out; a module where it does not fails the
// bounds checks and is walked by frame pointers).
CfiTables tablesOf(const dl_phdr_info& info) {
  uintptr_t header = 0;
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    if (info.dlpi_phdr[i].p_type == PT_GNU_EH_FRAME) header = info.dlpi_addr + info.dlpi_phdr[i].p_vaddr;
  }
  if (header == 0) return {};
  for (int i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    const uintptr_t start = info.dlpi_addr + segment.p_vaddr;
    // p_filesz, not p_memsz: past it lies zero-filled memory, no table.
    if (segment.p_type == PT_LOAD && header >= start && header < start + segment.p_filesz) {
      return {reinterpret_cast<const uint8_t*>(start), start, segment.p_filesz, header};
    }
  }
  return {};
}

std::vector<UnwindModule> readModules() {
  std::vector<UnwindModule> modules;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& found = *static_cast<std::vector<UnwindModule>*>(data);
        const CfiTables tables = tablesOf(*info);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& segment = info->dlpi_phdr[i];
          if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_X)) continue;
          const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
          found.push_back({start, start + segment.p_memsz, tables});
        }
        return 0;
      },
      &modules);
  std::sort(modules.begin(), modules.end(), [](const UnwindModule& a, const UnwindModule& b) { return a.start < b.start; });
  return modules;
}

}  // namespace

const UnwindModule* UnwindModules::find(uintptr_t pc) const {
  size_t low = 0, high = count;  // the module is below high
  while (low < high) {
    const size_t middle = low + (high - low) / 2;
    if (modules[middle].end <= pc) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low < count && modules[low].start <= pc ? &modules[low] : nullptr;
}

CfiResult UnwindModules::ruleAt(const UnwindModule& module, uintptr_t pc, FrameRule& rule) const {
  CfiResult result;
  if (cache && cache->find(generation, pc, result, rule)) return result;
  result = frameRuleAt(module.tables, pc, rule);
  if (cache) cache->store(generation, pc, result, rule);
  return result;
}

void refreshLoadedUnwindModules() {
  std::lock_guard<std::mutex> lock(g_refresh_mutex);
  const LoaderCounts counts = loaderCounts();
  if (g_read && counts.known && counts.loads == g_loads && counts.unloads == g_unloads) return;
  const std::vector<UnwindModule> modules = readModules();
  // Never freed (see the top of unwind_modules.h).
  auto* entries = new UnwindModule[modules.size()];
  std::copy(modules.begin(), modules.end(), entries);
  g_published.store(new UnwindModules{entries, modules.size(), &g_rule_cache, ++g_generation},
                    std::memory_order_release);
  g_read = true;
  g_loads = counts.loads;
  g_unloads = counts.unloads;
}

const UnwindModules* loadedUnwindModules() { return g_published.load(std::memory_order_acquire); }

}  // namespace stackscope::native

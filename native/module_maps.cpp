#include "native/module_maps.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

namespace stackscope::native {

std::vector<MappedModule> parseModuleMaps(const std::string& maps) {
  struct Line {
    uint64_t start, end, offset;
    bool executable;
    std::string path;
  };
  std::vector<Line> lines;
  std::map<std::string, uint64_t> bases;  // path -> the lowest address its offset 0 is mapped at
  std::istringstream text(maps);
  for (std::string line; std::getline(text, line);) {
    uint64_t start = 0, end = 0, offset = 0;
    char perms[8] = {};
    int path_at = -1;
    // "start-end perms offset dev inode   path"
    if (std::sscanf(line.c_str(), "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end, perms, &offset,
                    &path_at) < 4 || path_at < 0 || end <= start)
      continue;
    std::string path = line.substr(static_cast<size_t>(path_at));
    if (path.empty() || (path[0] != '/' && path != "[vdso]")) continue;  // anonymous: JIT code, heap, stacks
    if (offset == 0 && (bases.count(path) == 0 || start < bases[path])) bases[path] = start;
    lines.push_back({start, end, offset, perms[2] == 'x', std::move(path)});
  }
  std::vector<MappedModule> modules;
  for (const Line& line : lines) {
    if (!line.executable) continue;
    auto base = bases.find(line.path);
    const size_t slash = line.path.rfind('/');
    modules.push_back({line.start, line.end, base != bases.end() ? base->second : line.start - line.offset,
                       slash == std::string::npos ? line.path : line.path.substr(slash + 1)});
  }
  std::sort(modules.begin(), modules.end(), [](const MappedModule& a, const MappedModule& b) { return a.start < b.start; });
  return modules;
}

std::vector<MappedModule> readModuleMaps(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/maps");
  std::ostringstream text;
  text << file.rdbuf();
  return file ? parseModuleMaps(text.str()) : std::vector<MappedModule>{};
}

const MappedModule* moduleHolding(const std::vector<MappedModule>& modules, uint64_t pc) {
  auto after = std::upper_bound(modules.begin(), modules.end(), pc,
                                [](uint64_t value, const MappedModule& module) { return value < module.start; });
  if (after == modules.begin() || pc >= (after - 1)->end) return nullptr;
  return &*(after - 1);
}

}  // namespace stackscope::native

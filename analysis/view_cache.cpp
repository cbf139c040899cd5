#include "analysis/view_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace stackscope::analysis {

namespace {
uint64_t fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}
}  // namespace

ViewCache::ViewCache(const std::string& recording_path) : directory_(recording_path + ".cache") {
  struct stat st {};
  if (::stat(recording_path.c_str(), &st) != 0)
    throw std::runtime_error("cannot stat '" + recording_path + "': " + std::strerror(errno));
  identity_ = "stackscope-view-cache 1 dev=" + std::to_string(st.st_dev) + " ino=" + std::to_string(st.st_ino) +
              " size=" + std::to_string(st.st_size) + " mtime=" + std::to_string(st.st_mtim.tv_sec) + "." +
              std::to_string(st.st_mtim.tv_nsec);
}

std::string ViewCache::entryPath(const std::string& full_key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.view", static_cast<unsigned long long>(fnv1a64(full_key)));
  return directory_ + "/" + name;
}

// An entry is the full key, a blank line, then the value: the key is checked on read, so a
// hash collision or an entry of an older recording is a miss, never a wrong answer.
std::optional<std::string> ViewCache::get(const std::string& key) const {
  const std::string full = fullKey(key);
  std::ifstream in(entryPath(full), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string content = buffer.str();
  const std::string header = full + "\n\n";
  if (content.compare(0, header.size(), header) != 0) return std::nullopt;
  return content.substr(header.size());
}

void ViewCache::put(const std::string& key, const std::string& value) const {
  const std::string full = fullKey(key);
  if (::mkdir(directory_.c_str(), 0755) != 0 && errno != EEXIST) return;
  const std::string path = entryPath(full);
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << full << "\n\n" << value;
    if (!out) {
      std::remove(temp.c_str());
      return;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) std::remove(temp.c_str());
}

}  // namespace stackscope::analysis

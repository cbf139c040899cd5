#include "analysis/view_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "analysis/regular_file.h"
#include "format/reader.h"

namespace stackscope::analysis {

namespace {
// Views of huge recordings in JSON can be large, but not this large.
constexpr size_t kMaxEntryBytes = 1u << 30;

uint64_t fnv1a64(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

// The line that follows the key in an entry: the body's length and checksum.
std::string bodyLine(const std::string& body) {
  return "body " + std::to_string(body.size()) + " " + hex(fnv1a64(body)) + "\n";
}
// The program computing the views: another build may compute them otherwise (a fixed
// defect, a changed layout), so its entries are not this one's. The executable's identity
// changes with every build or install; unknown, it keys nothing (the rest still does).
std::string programIdentity() {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return "unknown";
  return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
         std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}
}  // namespace

ViewCache::ViewCache(const std::string& recording_path) : directory_(recording_path + ".cache") {
  format::RecordingReader reader(recording_path);
  struct stat st {};
  // The reader checked it is a regular file; a stat failing now means it just vanished.
  if (::stat(recording_path.c_str(), &st) != 0) throw format::FormatError("cannot stat '" + recording_path + "'");
  identity_ = "stackscope-view-cache 2 program=" + programIdentity() + " content=" + reader.contentFingerprint() + " dev=" + std::to_string(st.st_dev) +
              " ino=" + std::to_string(st.st_ino) + " size=" + std::to_string(st.st_size) +
              " mtime=" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
              " ctime=" + std::to_string(st.st_ctim.tv_sec) + "." + std::to_string(st.st_ctim.tv_nsec);
}

std::string ViewCache::entryPath(const std::string& full_key) const { return directory_ + "/" + hex(fnv1a64(full_key)) + ".view"; }

// An entry is the full key, a blank line, the body line, then the body: the key is checked on
// read, so a hash collision or an entry of an older recording is a miss, never a wrong
// answer; the body line catches an entry edited or cut short.
std::optional<std::string> ViewCache::get(const std::string& key) const {
  const std::string full = fullKey(key);
  std::optional<std::string> content;
  try {
    content = readRegularFile(entryPath(full), kMaxEntryBytes);
  } catch (const SideFileError&) {
    return std::nullopt;  // a FIFO or a directory in the cache: recompute (put replaces it)
  }
  if (!content) return std::nullopt;
  const std::string header = full + "\n\n";
  if (content->compare(0, header.size(), header) != 0) return std::nullopt;
  const size_t line_end = content->find('\n', header.size());
  if (line_end == std::string::npos) return std::nullopt;
  std::string body = content->substr(line_end + 1);
  if (content->compare(header.size(), line_end + 1 - header.size(), bodyLine(body)) != 0) return std::nullopt;
  return body;
}

void ViewCache::put(const std::string& key, const std::string& value) const {
  const std::string full = fullKey(key);
  if (::mkdir(directory_.c_str(), 0755) != 0 && errno != EEXIST) return;
  const std::string path = entryPath(full);
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  std::remove(temp.c_str());  // a file of that name left by a crash, whatever its type, goes
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << full << "\n\n" << bodyLine(value) << value;
    if (!out) {
      std::remove(temp.c_str());
      return;
    }
  }
  // rename replaces whatever was there, a FIFO or a damaged entry included.
  if (std::rename(temp.c_str(), path.c_str()) != 0) std::remove(temp.c_str());
}

}  // namespace stackscope::analysis

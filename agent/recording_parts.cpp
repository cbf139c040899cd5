#include "agent/recording_parts.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "format/file_copy.h"
#include "format/part_names.h"

namespace stackscope::agent {

namespace {

uint64_t oldestPossible(uint64_t current, uint32_t max_files) {
  return max_files > 0 && current + 1 > max_files ? current + 1 - max_files : 0;
}

// "/d/run.ssr" -> {"/d", "run.ssr"}; "run.ssr" -> {".", "run.ssr"}.
std::pair<std::string, std::string> directoryAndName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace

std::vector<FinishedPart> finishedParts(const std::string& first, uint64_t current, uint32_t max_files) {
  std::vector<FinishedPart> parts;
  for (uint64_t n = oldestPossible(current, max_files); n < current; ++n) {
    std::string path = format::partName(first, n);
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      parts.push_back({n, std::move(path), static_cast<uint64_t>(st.st_size)});
  }
  return parts;
}

PartCopies::PartCopies(const std::string& first, uint64_t current, uint32_t max_files) : current_(current) {
  for (const FinishedPart& part : finishedParts(first, current, max_files)) {
    const int fd = ::open(part.path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0) continue;  // deleted meanwhile (by hand: maxfiles= waits for this writer)
    if (::fstat(fd, &st) == 0) own_files_.emplace_back(st.st_dev, st.st_ino);
    parts_.emplace_back(part.number, fd);
  }
  struct stat st {};
  if (::stat(format::partName(first, current).c_str(), &st) == 0) own_files_.emplace_back(st.st_dev, st.st_ino);
}

PartCopies::~PartCopies() {
  for (const auto& [number, fd] : parts_) ::close(fd);
}

bool PartCopies::isRecordingFile(const std::string& path) const {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 &&
         std::find(own_files_.begin(), own_files_.end(), std::make_pair(st.st_dev, st.st_ino)) != own_files_.end();
}

bool PartCopies::mayWrite(const std::string& target, std::string& error) const {
  std::vector<uint64_t> numbers{current_};
  for (const auto& [number, fd] : parts_) numbers.push_back(number);
  for (uint64_t n : numbers) {
    const std::string path = format::partName(target, n);
    if (isRecordingFile(path)) {
      error = "'" + path + "' is a file of the recording itself";
      return false;
    }
  }
  return true;
}

bool PartCopies::copy(const std::string& target, std::string& error) const {
  for (const auto& [number, fd] : parts_) {
    if (!format::copyFileTo(fd, format::kWholeFile, {}, format::partName(target, number), error)) return false;
  }
  // Every other file of target's set goes: report would read it as a part of this copy.
  const auto [directory, name] = directoryAndName(target);
  DIR* dir = ::opendir(directory.c_str());
  if (!dir) return true;  // the copies were just written there: not expected
  auto copied = [&](uint64_t n) {
    return n == current_ || std::any_of(parts_.begin(), parts_.end(), [&](const auto& part) { return part.first == n; });
  };
  bool ok = true;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string other = entry->d_name;
    const std::optional<uint64_t> n = other == name ? std::optional<uint64_t>(0) : format::partNumber(name, other);
    const std::string path = directory + "/" + other;
    struct stat st {};
    if (!n || copied(*n) || ::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || isRecordingFile(path)) continue;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      error = "cannot delete '" + path + "', left from an earlier copy: " + std::strerror(errno);
      ok = false;
    }
  }
  ::closedir(dir);
  return ok;
}

}  // namespace stackscope::agent

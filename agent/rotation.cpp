#include "agent/rotation.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format/part_names.h"

namespace stackscope::agent {

Rotation::Rotation(const Options& options, std::string first, int64_t start_ns)
    : interval_ns_(options.rotate_ns),
      max_bytes_(options.rotate_bytes),
      max_files_(options.max_files),
      first_(std::move(first)),
      file_start_ns_(start_ns) {
  if (max_files_ > 0) kept_.push_back(first_);
}

std::string Rotation::next(int64_t now_ns) {
  file_start_ns_ = now_ns;
  std::string name = format::partName(first_, ++parts_);
  if (max_files_ > 0) kept_.push_back(name);
  return name;
}

bool Rotation::opened(std::string& error) {
  bool ok = true;
  while (max_files_ > 0 && kept_.size() > max_files_) {
    if (::unlink(kept_.front().c_str()) != 0 && errno != ENOENT) {
      error = "cannot delete '" + kept_.front() + "' (maxfiles=): " + std::strerror(errno);
      ok = false;
    }
    kept_.pop_front();
  }
  return ok;
}

}  // namespace stackscope::agent

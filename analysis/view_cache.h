// A cache of computed views next to the recording (`run.ssr` -> `run.ssr.cache/`), so that
// reopening a view does not read the events again. An entry is keyed by the recording's
// identity (device, inode, size, modification time: any rewrite or growth changes it) and
// by a caller's key (snapshot, filter, resource name, output options).
#pragma once

#include <optional>
#include <string>

namespace stackscope::analysis {

class ViewCache {
 public:
  // Throws std::runtime_error when the recording cannot be stat'ed.
  explicit ViewCache(const std::string& recording_path);

  std::optional<std::string> get(const std::string& key) const;
  // Best effort: a cache that cannot be written (read-only directory, full disk) is skipped.
  void put(const std::string& key, const std::string& value) const;

  const std::string& directory() const { return directory_; }

 private:
  std::string entryPath(const std::string& full_key) const;
  std::string fullKey(const std::string& key) const { return identity_ + "\n" + key; }

  std::string directory_;
  std::string identity_;
};

}  // namespace stackscope::analysis

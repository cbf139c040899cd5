// A cache of computed views next to the recording (`run.ssr` -> `run.ssr.cache/`), so that
// reopening a view does not read the events again. An entry is keyed by the recording's
// content (a digest of its header and every chunk header, each holding its payload's
// checksum: format::RecordingReader::contentFingerprint), by its file identity (inode, size,
// modification and change times: any rewrite, even one that restores the mtime, changes the
// change time), by the program computing them (its executable's identity: an upgraded
// stackscope recomputes) and by a caller's key (snapshot, filter, resource name, output
// options).
// Every entry carries a checksum of its body; an entry that fails it, or is not a regular
// file, is a miss and gets recomputed.
#pragma once

#include <optional>
#include <string>

namespace stackscope::analysis {

class ViewCache {
 public:
  // Throws format::FormatError when the recording cannot be opened or is not a recording.
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

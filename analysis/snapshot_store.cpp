#include "analysis/snapshot_store.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/regular_file.h"

namespace stackscope::analysis {

namespace {
constexpr int kSidecarVersion = 1;
// Far beyond any hand-kept list of definitions; a larger "sidecar" is not ours.
constexpr size_t kMaxSidecarBytes = 16u << 20;

// What a wrong value was, for the message: dump() recurses, so nested values are only named.
std::string describe(const nlohmann::json& value) { return value.is_primitive() ? value.dump() : std::string("an ") + value.type_name(); }

// A time field of a definition: absent (the default), or a whole number of nanoseconds in
// [0, 2^63-1]. JSON numbers beyond that (18446744073709551615), negative or fractional
// ones are damage, never reinterpreted.
int64_t timeField(const nlohmann::json& item, const char* key, int64_t absent) {
  const auto it = item.find(key);
  if (it == item.end()) return absent;
  if (it->is_number_unsigned() && it->get<uint64_t>() <= uint64_t(TimeWindow::kOpen)) return it->get<int64_t>();
  if (it->is_number_integer() && !it->is_number_unsigned() && it->get<int64_t>() >= 0) return it->get<int64_t>();
  throw SnapshotError(std::string(key) + " must be a whole number of nanoseconds from 0 to 9223372036854775807, not " + describe(*it));
}

std::string textField(const nlohmann::json& item, const char* key) {
  const auto it = item.find(key);
  if (it == item.end()) return {};
  if (!it->is_string()) throw SnapshotError(std::string(key) + " must be a string, not " + describe(*it));
  return it->get<std::string>();
}

SavedSnapshot definition(const nlohmann::json& item) {
  if (!item.is_object()) throw SnapshotError("a snapshot must be an object, not " + describe(item));
  SavedSnapshot s;
  s.name = textField(item, "name");
  if (s.name.empty()) throw SnapshotError("a snapshot has no name");
  try {
    s.from_ns = timeField(item, "from_ns", 0);
    s.to_ns = timeField(item, "to_ns", TimeWindow::kOpen);
    if (s.to_ns <= s.from_ns) throw SnapshotError("to_ns must be later than from_ns");
    s.where = textField(item, "where");
    s.parent = textField(item, "parent");
  } catch (const SnapshotError& e) {
    throw SnapshotError("snapshot '" + s.name + "': " + e.what());
  }
  return s;
}
}  // namespace

std::string snapshotSidecarPath(const std::string& recording_path) { return recording_path + ".snapshots.json"; }

std::vector<SavedSnapshot> loadSavedSnapshots(const std::string& recording_path) {
  const std::string path = snapshotSidecarPath(recording_path);
  std::optional<std::string> text;
  try {
    text = readRegularFile(path, kMaxSidecarBytes);
  } catch (const SideFileError& e) {
    throw SnapshotError(std::string("saved snapshots: ") + e.what());
  }
  if (!text) return {};
  std::vector<SavedSnapshot> out;
  try {
    const nlohmann::json doc = nlohmann::json::parse(*text);
    if (!doc.is_object()) throw SnapshotError("not a JSON object");
    const auto version = doc.find("version");
    if (version == doc.end() || !version->is_number_integer() || version->get<int64_t>() < 1)
      throw SnapshotError("no valid version");
    if (version->get<int64_t>() > kSidecarVersion) throw SnapshotError("written by a newer stackscope");
    const auto list = doc.find("snapshots");
    if (list == doc.end() || !list->is_array()) throw SnapshotError("no snapshots array");
    std::set<std::string> names;
    for (const auto& item : *list) {
      SavedSnapshot s = definition(item);
      if (!names.insert(s.name).second) throw SnapshotError("snapshot '" + s.name + "' is defined twice");
      out.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    throw SnapshotError("'" + path + "' is damaged: " + e.what());
  } catch (const SnapshotError& e) {
    throw SnapshotError("'" + path + "' is damaged: " + e.what());
  }
  return out;
}

void saveSnapshot(const std::string& recording_path, const SavedSnapshot& snapshot) {
  std::vector<SavedSnapshot> all = loadSavedSnapshots(recording_path);
  std::erase_if(all, [&](const SavedSnapshot& s) { return s.name == snapshot.name; });
  all.push_back(snapshot);
  nlohmann::json list = nlohmann::json::array();
  for (const SavedSnapshot& s : all) {
    nlohmann::json item = {{"name", s.name}, {"from_ns", s.from_ns}};
    if (s.to_ns != TimeWindow::kOpen) item["to_ns"] = s.to_ns;
    if (!s.where.empty()) item["where"] = s.where;
    if (!s.parent.empty()) item["parent"] = s.parent;
    list.push_back(std::move(item));
  }
  const std::string path = snapshotSidecarPath(recording_path);
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << nlohmann::json{{"version", kSidecarVersion}, {"snapshots", list}}.dump(2) << '\n';
    if (!out) throw SnapshotError("cannot write '" + temp + "'");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) throw SnapshotError("cannot replace '" + path + "'");
}

}  // namespace stackscope::analysis

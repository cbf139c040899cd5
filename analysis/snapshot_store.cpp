#include "analysis/snapshot_store.h"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace stackscope::analysis {

namespace {
constexpr int kSidecarVersion = 1;
}

std::string snapshotSidecarPath(const std::string& recording_path) { return recording_path + ".snapshots.json"; }

std::vector<SavedSnapshot> loadSavedSnapshots(const std::string& recording_path) {
  const std::string path = snapshotSidecarPath(recording_path);
  std::ifstream in(path);
  if (!in) return {};
  std::vector<SavedSnapshot> out;
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    if (doc.at("version").get<int>() > kSidecarVersion) throw SnapshotError("'" + path + "' was written by a newer stackscope");
    for (const auto& item : doc.at("snapshots")) {
      SavedSnapshot s;
      s.name = item.at("name").get<std::string>();
      s.from_ns = item.value("from_ns", int64_t{0});
      s.to_ns = item.value("to_ns", TimeWindow::kOpen);
      s.where = item.value("where", std::string());
      s.parent = item.value("parent", std::string());
      out.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
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

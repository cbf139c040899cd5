// libFuzzer target: any bytes as a recording's saved snapshots file, loaded and every
// snapshot in it resolved (parents, markers, filters). SnapshotError and WhereError are the
// clear errors; a crash (a deep chain, deep JSON), a hang or a sanitizer report is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "analysis/snapshot_store.h"
#include "analysis/snapshots.h"
#include "analysis/where_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace stackscope::analysis;
  static const std::string recording = "/tmp/stackscope-fuzz-snapshots-" + std::to_string(::getpid()) + ".ssr";
  if (FILE* f = std::fopen(snapshotSidecarPath(recording).c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  static const std::vector<MarkerEvent> markers = {{0, 1, stackscope::format::MarkerKind::Begin, "work"},
                                                   {50, 1, stackscope::format::MarkerKind::End, "work"},
                                                   {60, 1, stackscope::format::MarkerKind::Point, "a"},
                                                   {90, 1, stackscope::format::MarkerKind::End, "b"}};
  try {
    const std::vector<SavedSnapshot> saved = loadSavedSnapshots(recording);
    SnapshotResolver resolver(markers, saved, 100);
    for (const SavedSnapshot& s : saved) {
      try {
        const Snapshot snapshot = resolver.resolve(s.name);
        for (const std::string& filter : snapshot.filters) parseWhere(filter);
        snapshot.hull();
      } catch (const SnapshotError&) {
      } catch (const WhereError&) {
      }
    }
  } catch (const SnapshotError&) {
  }
  return 0;
}

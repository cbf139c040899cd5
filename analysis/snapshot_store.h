// Saved snapshot definitions live in a small JSON sidecar next to the recording
// (`run.ssr` -> `run.ssr.snapshots.json`): the recording itself is never rewritten.
#pragma once

#include <string>
#include <vector>

#include "analysis/snapshots.h"

namespace stackscope::analysis {

std::string snapshotSidecarPath(const std::string& recording_path);

// No sidecar means no saved snapshots. A damaged sidecar throws SnapshotError.
std::vector<SavedSnapshot> loadSavedSnapshots(const std::string& recording_path);

// Adds or replaces the definition named `snapshot.name`. Written to a temporary file and
// renamed, so a crash never leaves a half-written sidecar.
void saveSnapshot(const std::string& recording_path, const SavedSnapshot& snapshot);

}  // namespace stackscope::analysis

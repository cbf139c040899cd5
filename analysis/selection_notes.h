// Why a report shows nothing, said in a line instead of left to an empty table: a window
// that starts after the recording ends, a snapshot that selects no time, a filter or a
// navigation step that keeps no sample, markers that do not pair up.
#pragma once

#include <string>
#include <vector>

#include "analysis/selection.h"

namespace stackscope::analysis {

// Notes about `selection` over `recording` (loaded for the selection's hull): the snapshot's
// own notes (unpaired markers, a child that meets nothing of its parent), then, only when
// the selection keeps no event of `kind` at all, the first reason found for that. Empty when
// there is nothing to say. Stops at the first event the selection keeps.
std::vector<std::string> selectionNotes(const Selection& selection, const Recording& recording, EventKind kind);

}  // namespace stackscope::analysis

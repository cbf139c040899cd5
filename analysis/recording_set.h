// A recording as the commands read it: one file, or the files of a rotated recording (agent
// options rotate= and maxfiles=; format/part_names.h) read as one. Given run.ssr, the set is
// run.ssr and every run-N.ssr beside it, in the order of N; run.ssr itself may be gone
// (maxfiles= deleted it). A part names one file only: run-3.ssr is read alone.
#pragma once

#include <string>
#include <vector>

#include "analysis/load.h"
#include "analysis/recording.h"

namespace stackscope::analysis {

// The files of the recording `path` names, in order: `path` alone when it has no parts (even
// when it does not exist, for the loader to say so).
std::vector<std::string> recordingParts(const std::string& path);

// loadRecording (load.h) over every part, merged into one model (recording_merge.h). A part
// of another session (another pid or start), or one that cannot be read, is left out with a
// warning; a part missing from the sequence is told in the warnings. Throws as loadRecording
// does when the first part cannot be read. `rows` as for loadRecording; a recording of several
// parts is always loaded with its rows.
Recording loadRecordingSet(const std::string& path, const TimeWindow& window = {}, SampleRows rows = SampleRows::Kept);

// loadMapData (load.h) over every part: the names and markers of the whole recording.
Recording loadMapDataSet(const std::string& path);

}  // namespace stackscope::analysis

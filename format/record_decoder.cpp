// The record decoder (record_decoder.h) for any visitor, through RecordVisitor's virtual calls.
#include "format/record_decoder.h"

namespace stackscope::format {

bool RecordingReader::readChunk(const ChunkInfo& chunk, RecordVisitor& visitor) { return readChunkTyped(chunk, visitor); }

}  // namespace stackscope::format

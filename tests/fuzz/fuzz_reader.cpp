// libFuzzer target: any bytes as a recording file, through the reader, the loader (whole and
// windowed) and `info`'s inspection. A clear FormatError is fine; a crash, a hang, a huge
// allocation or a sanitizer report is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "analysis/file_inspection.h"
#include "analysis/load.h"
#include "format/reader.h"

namespace {
const std::string& scratchPath() {
  static const std::string path = "/tmp/stackscope-fuzz-reader-" + std::to_string(::getpid()) + ".ssr";
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = scratchPath();
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  using namespace stackscope;
  try {
    const analysis::Recording whole = analysis::loadRecording(path);
    analysis::loadRecording(path, {whole.end_ns / 2, whole.end_ns / 2 + 1000000});
    analysis::loadMapData(path);
    analysis::inspectFile(path);
    format::RecordingReader(path).contentFingerprint();
  } catch (const format::FormatError&) {
  }
  return 0;
}

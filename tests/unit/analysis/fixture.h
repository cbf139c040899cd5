// Hand-built recordings with answers known by construction, and the helpers the tests share.
#pragma once

#include <cstdint>
#include <string>

#include "format/writer.h"

namespace stackscope::testing {

inline constexpr int64_t kMs = 1000000;

// A scratch directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Writes the reference recording (wall mode, 10ms, 70ms long) to `path`:
//
//   methods  app.Main.main, app.Work.a, app.Work.b, app.Util$Inner.leaf,
//            java.lang.Thread.sleep, app.Worker.run
//   stacks   (outermost first)
//     SA main > a > leaf        SB main > a        SR main > a > b > a > b (recursion)
//     SW run > a                SS run > sleep
//   samples  main     (thread 1): 0 SB, 10 SA, 20 SA, 30 SB (blocked), 40 SR, 50 SR, 60 SA
//            worker-1 (thread 2): 5 SW, 15 SW with weight 2
//            sleeper  (thread 3): 0, 10, 20, 30 SS (sleeping)
//   lost     25 not_walkable 2, 45 buffer_full 1, 65 not_walkable 1
//   status   30, 60
//
// 14 samples in all. Events up to 30ms are in the first event chunk, the rest in a second.
// With finish = false the file ends after the second event chunk: no end record, no index.
void writeReferenceRecording(const std::string& path, bool finish = true);

// The RecordingInfo every hand-built recording starts with: `mode` ("cpu" or "wall") at 10ms,
// started 2024-05-01 12:00:00 UTC by a JDK 17 with process id `pid`.
void writeTestInfo(format::RecordingWriter& w, const std::string& mode, int64_t status_interval_ns, int64_t pid);

// A cpu,gc recording started in `w` (opened), for the caller to add to and finish: thread 1
// "main" running app.Main.main (method 1) at 10, 20, 30 and 40ms, and two young collections
// (Allocation Failure), at 15ms for 2ms and at 35ms for 3ms.
void writeGcRecordingStart(format::RecordingWriter& w);

std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& content);

// Truncates a file to `size` bytes.
void truncateFile(const std::string& path, uint64_t size);

// Flips one byte inside the payload of the file's chunk number `chunk` (0 = the first, a map
// chunk; -1 = the last), so that chunk fails its checksum.
void corruptChunk(const std::string& path, int chunk);

// Offset of the file's last chunk: truncating a little after it tears the file there.
uint64_t lastChunkOffset(const std::string& path);

}  // namespace stackscope::testing

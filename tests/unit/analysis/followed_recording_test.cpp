// A recording followed as it is written (analysis/followed_recording.h, what `top` reads): a
// look reads only the chunks appended since the last one, whatever the file's length before,
// and builds the model loadRecording builds for the same window.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <memory>

#include "analysis/followed_recording.h"
#include "analysis/load.h"
#include "fixture.h"
#include "format/layout.h"
#include "format/reader.h"

namespace stackscope::analysis {
namespace {

using testing::kMs;

// A recording written second by second as the agent writes it: each second a new method
// and stack (so the map data grows with the file), samples of it every 10 ms, and a flush,
// which writes that second's map chunk and event chunk.
class GrowingFile {
 public:
  explicit GrowingFile(const std::string& path) {
    if (!w_.open(path)) throw std::runtime_error(w_.lastError());
    testing::writeTestInfo(w_, "cpu", 1000 * kMs, 4242);
    w_.writeThread({1, "main", 1001, 1});
    w_.flush();
  }
  void writeSeconds(int count) {
    for (int i = 0; i < count; ++i, ++second_) {
      const uint32_t method = static_cast<uint32_t>(second_ + 1);
      w_.writeMethod({method, w_.internString("app.Work"), w_.internString("step" + std::to_string(second_)),
                      w_.internString("()V"), 0, {}});
      const format::Frame frame{method, 0};
      const uint32_t stack = w_.internStack(&frame, 1);
      for (int64_t ms = 0; ms < 1000; ms += 10) w_.writeSample({second_ * 1000 * kMs + ms * kMs, 1, stack});
      ASSERT_TRUE(w_.flush());
    }
  }
  int64_t seconds() const { return second_; }
  // One more second whose samples are on a native frame: `address` of the module `path`.
  void writeNativeSecond(const std::string& path, uint64_t address) {
    format::MethodRecord native{kNativeMethod, w_.internString(""), w_.internString("[native]"), 0, 0, {}};
    native.native_module = w_.internString(path);
    native.native_address = address;
    w_.writeMethod(native);
    const format::Frame frame{kNativeMethod, 0};
    const uint32_t stack = w_.internStack(&frame, 1);
    for (int64_t ms = 0; ms < 1000; ms += 10) w_.writeSample({second_ * 1000 * kMs + ms * kMs, 1, stack});
    ASSERT_TRUE(w_.flush());
    ++second_;
  }
  static constexpr uint32_t kNativeMethod = 100000;

 private:
  format::RecordingWriter w_;
  int64_t second_ = 0;
};

// The chunks of `path` that begin at or after `offset`, by a fresh reader (ground truth).
size_t chunksFrom(const std::string& path, uint64_t offset) {
  format::RecordingReader reader(path);
  size_t n = 0;
  for (const format::ChunkInfo& chunk : reader.chunks()) n += chunk.offset >= offset;
  return n;
}

uint64_t fileSize(const std::string& path) { return format::RecordingReader(path).fileSize(); }

// A file of `seconds` seconds, followed from its first look over all of it.
class FollowedRecordingTest : public ::testing::Test {
 protected:
  FollowedRecording& follow(int seconds) {
    file.writeSeconds(seconds);
    followed = std::make_unique<FollowedRecording>(path);
    followed->look({0, TimeWindow::kOpen});
    return *followed;
  }
  testing::TempDir dir;
  const std::string path = dir.file("stream.ssr");
  GrowingFile file{path};
  std::unique_ptr<FollowedRecording> followed;
};

TEST_F(FollowedRecordingTest, ALookReadsOnlyTheChunksAppendedSinceTheLastOne) {
  follow(1);
  // After 10 s of history and after 200 s, the same 3 seconds more cost their own bytes: each
  // new chunk's header once as the scan finds it, then header and payload as it is decoded.
  // The window holds only the new seconds, so no older event chunk is read again.
  uint64_t whole_load_read = 0;
  for (const int history : {10, 200}) {
    file.writeSeconds(history - static_cast<int>(file.seconds()));
    const uint64_t read_before = followed->look({0, 0}).bytes_read;  // takes in the history's chunks
    const uint64_t size_before = fileSize(path);
    const int64_t from_ns = file.seconds() * 1000 * kMs;
    file.writeSeconds(3);
    const uint64_t appended = fileSize(path) - size_before;
    const size_t new_chunks = chunksFrom(path, size_before);
    ASSERT_EQ(new_chunks, 6u) << "a map and an event chunk per second";
    const Recording& rec = followed->look({from_ns, TimeWindow::kOpen});
    EXPECT_EQ(rec.bytes_read - read_before, appended + new_chunks * format::layout::kChunkHeaderSize)
        << "after " << history << " s";
    EXPECT_EQ(rec.events.size(), 300u) << "3 s of samples every 10 ms";
    // A load of the whole file for the same window reads all the map data written so far:
    // 190 more map chunks the second time.
    const uint64_t whole = loadRecording(path, {from_ns, TimeWindow::kOpen}).bytes_read;
    EXPECT_GT(whole, whole_load_read + (whole_load_read ? 190 * format::layout::kChunkHeaderSize : 0));
    whole_load_read = whole;
  }
}

TEST_F(FollowedRecordingTest, BuildsTheModelLoadRecordingBuildsForTheWindow) {
  FollowedRecording& followed = follow(2);
  file.writeSeconds(5);
  const TimeWindow window{3500 * kMs, TimeWindow::kOpen};
  const Recording& got = followed.look(window);
  const Recording want = loadRecording(path, window);
  ASSERT_EQ(got.events.size(), want.events.size());
  EXPECT_EQ(got.events.size(), 350u);  // 3.5 s to 7 s
  for (size_t i = 0; i < want.events.size(); ++i) {
    EXPECT_EQ(got.events[i].time_ns, want.events[i].time_ns);
    EXPECT_EQ(got.stack(got.events[i].stack).front().method, want.stack(want.events[i].stack).front().method);
  }
  EXPECT_EQ(got.strings, want.strings);
  EXPECT_EQ(got.end_ns, want.end_ns);
  EXPECT_EQ(got.ended, want.ended);
  EXPECT_EQ(got.threads[1].name, "main");
}

TEST_F(FollowedRecordingTest, AChunkNotAllWrittenWaitsForTheNextLook) {
  file.writeSeconds(2);
  const std::string whole = testing::readFile(path);
  const std::string part = dir.file("part.ssr");
  const uint64_t cut = testing::lastChunkOffset(path) + format::layout::kChunkHeaderSize + 3;
  testing::writeFile(part, whole.substr(0, cut));
  FollowedRecording part_followed(part);
  EXPECT_EQ(part_followed.look({0, TimeWindow::kOpen}).events.size(), 100u) << "the second's event chunk is torn";
  testing::writeFile(part, whole);
  const Recording& rec = part_followed.look({0, TimeWindow::kOpen});
  EXPECT_EQ(rec.events.size(), 200u);
  for (const std::string& warning : rec.warnings) EXPECT_EQ(warning.find("torn"), std::string::npos) << warning;
}

// A native frame (mixed mode) is named in the followed model as the loader names it, at every
// look, and its name's strings never take the ids of the strings the file writes later (top
// showed "libc.so.6+0x…" while the names were left out, for that reason).
TEST_F(FollowedRecordingTest, NamesNativeFramesAtEveryLookAsTheLoaderDoes) {
  Dl_info info{};
  ASSERT_TRUE(dladdr(reinterpret_cast<void*>(&getpid), &info) && info.dli_fname && info.dli_fbase);
  const uint64_t address = reinterpret_cast<uintptr_t>(&getpid) - reinterpret_cast<uintptr_t>(info.dli_fbase);
  follow(2);
  file.writeNativeSecond(info.dli_fname, address);
  const auto name = [](const Recording& rec, uint32_t method) { return rec.strings.at(rec.methods.at(method).method_name); };
  const std::string expected = name(loadRecording(path), GrowingFile::kNativeMethod);
  ASSERT_NE(expected, "[native]") << "the loader names it";
  EXPECT_EQ(name(followed->look({0, TimeWindow::kOpen}), GrowingFile::kNativeMethod), expected);
  file.writeSeconds(2);  // strings the file defines after the names were given
  const Recording& later = followed->look({0, TimeWindow::kOpen});
  EXPECT_EQ(name(later, GrowingFile::kNativeMethod), expected);
  for (const uint32_t method : {4u, 5u}) EXPECT_EQ(name(later, method), "step" + std::to_string(method - 1));
}

}  // namespace
}  // namespace stackscope::analysis

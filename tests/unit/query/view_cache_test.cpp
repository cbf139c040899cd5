#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/view_cache.h"
#include "format/bytes.h"
#include "format/layout.h"
#include "format/reader.h"
#include "format/writer.h"

namespace stackscope::analysis {
namespace {

namespace fs = std::filesystem;

struct Scratch {
  Scratch() : dir(fs::temp_directory_path() / ("ss-cache-" + std::to_string(::getpid()))) { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string file(const std::string& name) const { return (dir / name).string(); }
  fs::path dir;
};

// A finished recording whose one thread is called `thread_name`.
void writeRecording(const std::string& path, const std::string& thread_name) {
  format::RecordingWriter w;
  ASSERT_TRUE(w.open(path)) << w.lastError();
  w.writeInfo({1, "cpu", 10000000, 1000000000, 1, "VM", "", {}, /*sample_metrics=*/0, /*boot_id=*/""});
  w.writeThread({1, thread_name, 100, 1});
  w.writeSample({10, 1, 0, format::ThreadState::Running, 1});
  ASSERT_TRUE(w.finish(20)) << w.lastError();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void overwrite(const std::string& path, const std::string& bytes) {
  std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);  // in place: same inode
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(ViewCache, MissThenHitThenInvalidatedByAChangedRecording) {
  Scratch scratch;
  const std::string recording = scratch.file("r.ssr");
  writeRecording(recording, "first");
  {
    ViewCache cache(recording);
    EXPECT_FALSE(cache.get("methods").has_value());
    cache.put("methods", "the view\nwith lines");
    ASSERT_TRUE(cache.get("methods").has_value());
    EXPECT_EQ(*cache.get("methods"), "the view\nwith lines");
    EXPECT_FALSE(cache.get("threads").has_value());
    EXPECT_EQ(ViewCache(recording).get("methods"), "the view\nwith lines");  // a second run hits
  }
  writeRecording(recording, "second, longer");
  ViewCache changed(recording);
  EXPECT_FALSE(changed.get("methods").has_value());
}

// A rebuilt or upgraded stackscope may compute a view otherwise: the key names the program
// (its executable's device, inode, size and mtime), so another build's entries are not hits.
TEST(ViewCache, EntriesAreKeyedByTheProgramThatComputedThem) {
  Scratch scratch;
  const std::string recording = scratch.file("r.ssr");
  writeRecording(recording, "first");
  ViewCache cache(recording);
  cache.put("methods", "the view");
  struct stat exe {};
  ASSERT_EQ(::stat("/proc/self/exe", &exe), 0);
  const std::string program = "program=" + std::to_string(exe.st_dev) + ":" + std::to_string(exe.st_ino) + ":" +
                              std::to_string(exe.st_size) + ":" + std::to_string(exe.st_mtim.tv_sec) + "." +
                              std::to_string(exe.st_mtim.tv_nsec) + " ";
  int entries = 0;
  for (const auto& entry : fs::directory_iterator(cache.directory())) {
    ++entries;
    EXPECT_NE(slurp(entry.path().string()).find(program), std::string::npos) << slurp(entry.path().string());
  }
  EXPECT_EQ(entries, 1);
}

// The torture case: the recording rewritten in place with the same size, its mtime put back.
TEST(ViewCache, ContentChangedWithSameSizeAndMtimeIsAMiss) {
  Scratch scratch;
  const std::string recording = scratch.file("r.ssr"), other = scratch.file("o.ssr");
  writeRecording(recording, "alpha");
  writeRecording(other, "omega");  // same length: same sizes everywhere
  const std::string replacement = slurp(other);
  ASSERT_EQ(replacement.size(), fs::file_size(recording));
  ASSERT_NE(replacement, slurp(recording));
  struct stat before {};
  ASSERT_EQ(::stat(recording.c_str(), &before), 0);
  ViewCache(recording).put("methods", "alpha's view");
  ASSERT_EQ(ViewCache(recording).get("methods"), "alpha's view");

  overwrite(recording, replacement);
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, recording.c_str(), times, 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat(recording.c_str(), &after), 0);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_ino, before.st_ino);
  ASSERT_EQ(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  EXPECT_FALSE(ViewCache(recording).get("methods").has_value());
}

TEST(ViewCache, ContentFingerprintFollowsChunkContentOnly) {
  Scratch scratch;
  const std::string a = scratch.file("a.ssr"), b = scratch.file("b.ssr"), a2 = scratch.file("a2.ssr");
  writeRecording(a, "alpha");
  writeRecording(b, "omega");
  fs::copy_file(a, a2);
  EXPECT_EQ(format::RecordingReader(a).contentFingerprint(), format::RecordingReader(a2).contentFingerprint());
  EXPECT_NE(format::RecordingReader(a).contentFingerprint(), format::RecordingReader(b).contentFingerprint());
}

TEST(ViewCache, AnEditedOrCutBodyIsAMiss) {
  Scratch scratch;
  const std::string recording = scratch.file("r.ssr");
  writeRecording(recording, "main");
  const ViewCache cache(recording);
  const std::string body = "Method  Self\nhot.A   90\n";
  cache.put("methods", body);
  ASSERT_EQ(cache.get("methods"), body);
  std::string entry_path;
  for (const auto& e : fs::directory_iterator(cache.directory())) entry_path = e.path().string();
  const std::string entry = slurp(entry_path);
  std::string edited = entry;
  edited[edited.rfind("90")] = '1';  // "10": same length, a different answer
  std::ofstream(entry_path, std::ios::binary | std::ios::trunc) << edited;
  EXPECT_FALSE(cache.get("methods").has_value());
  std::ofstream(entry_path, std::ios::binary | std::ios::trunc) << entry.substr(0, entry.size() - 3);
  EXPECT_FALSE(cache.get("methods").has_value());
  cache.put("methods", body);  // recomputed and stored again
  EXPECT_EQ(cache.get("methods"), body);
}

TEST(ViewCache, AFifoAsAnEntryIsAMissNotAHang) {
  Scratch scratch;
  const std::string recording = scratch.file("r.ssr");
  writeRecording(recording, "main");
  const ViewCache cache(recording);
  cache.put("methods", "x");
  std::string entry_path;
  for (const auto& e : fs::directory_iterator(cache.directory())) entry_path = e.path().string();
  fs::remove(entry_path);
  ASSERT_EQ(::mkfifo(entry_path.c_str(), 0600), 0);
  EXPECT_FALSE(cache.get("methods").has_value());  // would block forever in an open() that waits
  cache.put("methods", "y");
  EXPECT_EQ(cache.get("methods"), "y");
}

TEST(ViewCache, UnwritableDirectoryIsSkippedQuietly) {
  Scratch scratch;
  const std::string recording = scratch.file("r.ssr");
  writeRecording(recording, "main");
  std::ofstream(recording + ".cache") << "a file where the directory should be";
  ViewCache cache(recording);
  cache.put("methods", "value");
  EXPECT_FALSE(cache.get("methods").has_value());
  fs::remove(recording);
  EXPECT_THROW(ViewCache{recording}, format::FormatError);
}

}  // namespace
}  // namespace stackscope::analysis

// Rotation's schedule and the files it keeps (rotation.h), in a temporary directory.
#include "agent/rotation.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace stackscope::agent {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kSecond = 1'000'000'000;

Options rotating(const char* text) {
  const ParseResult parsed = parseOptions(text, 1);
  EXPECT_TRUE(parsed.ok) << parsed.error;
  return parsed.options;
}

TEST(Rotation, OffWithoutRotate) { EXPECT_FALSE(Rotation(rotating(""), "run.ssr", 0).on()); }

TEST(Rotation, DueWhenTheFileIsOldEnoughCountedFromItsOwnStart) {
  Rotation rotation(rotating("rotate=10s"), "run.ssr", 5 * kSecond);
  ASSERT_TRUE(rotation.on());
  EXPECT_FALSE(rotation.due(15 * kSecond - 1, 1u << 30));  // size does not count
  EXPECT_TRUE(rotation.due(15 * kSecond, 0));
  EXPECT_EQ(rotation.next(16 * kSecond), "run-1.ssr");
  EXPECT_FALSE(rotation.due(25 * kSecond, 0));
  EXPECT_TRUE(rotation.due(26 * kSecond, 0));
  EXPECT_EQ(rotation.next(26 * kSecond), "run-2.ssr");
}

TEST(Rotation, DueWhenTheFileIsBigEnough) {
  Rotation rotation(rotating("rotate=64k"), "/d/run", 0);
  EXPECT_FALSE(rotation.due(1000 * kSecond, 65535));
  EXPECT_TRUE(rotation.due(0, 65536));
  EXPECT_EQ(rotation.next(0), "/d/run-1");
}

class RotationFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("stackscope-rotation-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string touch(const std::string& path) {
    std::ofstream(path) << "x";
    return path;
  }
  fs::path dir_;
};

// maxfiles=N keeps the newest N files, the current one included, once the next is open.
TEST_F(RotationFiles, MaxFilesDeletesTheOldest) {
  const std::string first = (dir_ / "run.ssr").string();
  Rotation rotation(rotating("rotate=1s,maxfiles=2"), touch(first), 0);
  std::string error;
  touch(rotation.next(1 * kSecond));
  EXPECT_TRUE(rotation.opened(error)) << error;
  EXPECT_TRUE(fs::exists(first));
  touch(rotation.next(2 * kSecond));
  EXPECT_TRUE(rotation.opened(error)) << error;
  EXPECT_FALSE(fs::exists(first));
  EXPECT_TRUE(fs::exists(dir_ / "run-1.ssr"));
  EXPECT_TRUE(fs::exists(dir_ / "run-2.ssr"));
  touch(rotation.next(3 * kSecond));
  EXPECT_TRUE(rotation.opened(error)) << error;
  EXPECT_FALSE(fs::exists(dir_ / "run-1.ssr"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

// Without maxfiles= every file stays.
TEST_F(RotationFiles, EveryFileStaysWithoutMaxFiles) {
  Rotation rotation(rotating("rotate=1s"), touch((dir_ / "run.ssr").string()), 0);
  std::string error;
  for (int i = 1; i <= 5; ++i) {
    touch(rotation.next(i * kSecond));
    EXPECT_TRUE(rotation.opened(error));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 6);
}

}  // namespace
}  // namespace stackscope::agent

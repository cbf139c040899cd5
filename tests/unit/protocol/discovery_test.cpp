#include "protocol/discovery.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace stackscope::protocol {
namespace {

class ControlFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/stackscope-discovery-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

mode_t modeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

TEST_F(ControlFiles, TokenIsForTheOwnerOnlyAndStaleFilesAreReplaced) {
  std::string error;
  ASSERT_TRUE(writeControlFiles(dir_, 42, "127.0.0.1:1", "old", error)) << error;
  ASSERT_TRUE(writeControlFiles(dir_, 42, "127.0.0.1:5000", "secret", error)) << error;
  EXPECT_EQ(modeOf(tokenFilePath(dir_, 42)), 0600u);
  EXPECT_EQ(modeOf(addressFilePath(dir_, 42)), 0644u);
  std::ifstream address(addressFilePath(dir_, 42));
  std::string line;
  std::getline(address, line);
  EXPECT_EQ(line, "127.0.0.1:5000");
  removeControlFiles(dir_, 42);
  EXPECT_FALSE(std::filesystem::exists(addressFilePath(dir_, 42)));
  EXPECT_FALSE(std::filesystem::exists(tokenFilePath(dir_, 42)));
}

TEST_F(ControlFiles, NeverWritesThroughASymbolicLink) {
  const std::string victim = dir_ + "/victim";
  std::ofstream(victim) << "untouched";
  // A link planted where the token goes is removed, not followed.
  ASSERT_EQ(symlink(victim.c_str(), tokenFilePath(dir_, 7).c_str()), 0);
  std::string error;
  ASSERT_TRUE(writeControlFiles(dir_, 7, "127.0.0.1:1", "secret", error)) << error;
  std::ifstream in(victim);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "untouched");
  EXPECT_FALSE(std::filesystem::is_symlink(tokenFilePath(dir_, 7)));
}

TEST(Locate, ANonexistentProcessIsNamed) {
  AgentLocation location;
  std::string error;
  EXPECT_FALSE(locateAgent(999'999'999, location, error));
  EXPECT_NE(error.find("no process"), std::string::npos);
  // This test process exists but has no control server.
  EXPECT_FALSE(locateAgent(getpid(), location, error));
  EXPECT_NE(error.find("no stackscope control server"), std::string::npos);
}

// Files an earlier process of the same pid left (killed before it removed them) are older than
// this process: they are not its server's.
TEST(Locate, ControlFilesOlderThanTheProcessAreNotItsOwn) {
  const long pid = getpid();
  std::string error;
  ASSERT_TRUE(writeControlFiles(kControlDirectory, pid, "127.0.0.1:1", "secret", error)) << error;
  AgentLocation location;
  EXPECT_TRUE(locateAgent(pid, location, error)) << error;  // written now: this process's
  const timespec long_ago[2] = {{1'000'000'000, 0}, {1'000'000'000, 0}};  // 2001
  ASSERT_EQ(utimensat(AT_FDCWD, addressFilePath(kControlDirectory, pid).c_str(), long_ago, 0), 0);
  EXPECT_FALSE(locateAgent(pid, location, error));
  EXPECT_NE(error.find("no stackscope control server"), std::string::npos) << error;
  removeControlFiles(kControlDirectory, pid);
}

}  // namespace
}  // namespace stackscope::protocol

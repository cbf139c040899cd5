#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis/view_cache.h"

namespace stackscope::analysis {
namespace {

TEST(ViewCache, MissThenHitThenInvalidatedByAChangedRecording) {
  const auto dir = std::filesystem::temp_directory_path() / ("ss-cache-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string recording = (dir / "r.ssr").string();
  std::ofstream(recording) << "first version";
  {
    ViewCache cache(recording);
    EXPECT_FALSE(cache.get("methods").has_value());
    cache.put("methods", "the view\nwith lines");
    ASSERT_TRUE(cache.get("methods").has_value());
    EXPECT_EQ(*cache.get("methods"), "the view\nwith lines");
    EXPECT_FALSE(cache.get("threads").has_value());
  }
  std::ofstream(recording, std::ios::app) << " grew";
  ViewCache changed(recording);
  EXPECT_FALSE(changed.get("methods").has_value());
  std::filesystem::remove_all(dir);
}

TEST(ViewCache, UnwritableDirectoryIsSkippedQuietly) {
  const auto dir = std::filesystem::temp_directory_path() / ("ss-cache-ro-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string recording = (dir / "r.ssr").string();
  std::ofstream(recording) << "x";
  std::ofstream(recording + ".cache") << "a file where the directory should be";
  ViewCache cache(recording);
  cache.put("methods", "value");
  EXPECT_FALSE(cache.get("methods").has_value());
  std::filesystem::remove_all(dir);
  EXPECT_THROW(ViewCache{recording}, std::runtime_error);
}

}  // namespace
}  // namespace stackscope::analysis

// Hostile input to the query side: nesting that would overflow a recursive parser or
// resolver, saved snapshot files with out-of-range or mistyped fields, a FIFO where a file
// should be. Each must give one clear error, never a crash or a hang.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "analysis/snapshot_store.h"
#include "analysis/snapshots.h"
#include "analysis/where_parser.h"

namespace stackscope::analysis {
namespace {

namespace fs = std::filesystem;

std::string nested(size_t depth, const std::string& inner) { return std::string(depth, '(') + inner + std::string(depth, ')'); }

std::string whereError(const std::string& expression) {
  try {
    parseWhere(expression);
  } catch (const WhereError& e) {
    return e.what();
  }
  return "";
}

TEST(HostileWhere, FifteenThousandParenthesesAreRefusedClearly) {
  const std::string message = whereError(nested(15000, "user=u1"));
  EXPECT_NE(message.find("nested deeper than " + std::to_string(kMaxWhereDepth)), std::string::npos) << message.substr(0, 200);
  std::string nots;
  for (int i = 0; i < 15000; ++i) nots += "not ";
  EXPECT_NE(whereError(nots + "user=u1").find("nested deeper than"), std::string::npos);
}

TEST(HostileWhere, NestingUpToTheLimitStillParses) {
  EXPECT_NO_THROW(parseWhere(nested(kMaxWhereDepth - 1, "user=u1")));
  EXPECT_THROW(parseWhere(nested(kMaxWhereDepth, "user=u1")), WhereError);
  // Long flat lists are not nesting: they stay allowed.
  std::string flat = "user=u0";
  for (int i = 1; i < 20000; ++i) flat += " or user=u" + std::to_string(i);
  EXPECT_EQ(parseWhere(flat)->children.size(), 20000u);
}

TEST(HostileSnapshots, AThirtyThousandDeepParentChainIsRefusedClearly) {
  std::vector<SavedSnapshot> chain;
  for (int i = 0; i < 30000; ++i) chain.push_back({"s" + std::to_string(i), 0, TimeWindow::kOpen, "", i ? "s" + std::to_string(i - 1) : ""});
  try {
    resolveSnapshot("s29999", {}, chain, 100);
    FAIL() << "a 30000-deep chain resolved";
  } catch (const SnapshotError& e) {
    EXPECT_NE(std::string(e.what()).find("more than " + std::to_string(kMaxSnapshotDepth) + " levels"), std::string::npos) << e.what();
  }
  // Up to the limit the chain resolves.
  EXPECT_NO_THROW(resolveSnapshot("s" + std::to_string(kMaxSnapshotDepth - 1), {}, chain, 100));
}

class SidecarTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_); }
  void TearDown() override { fs::remove_all(dir_); }
  void writeSidecar(const std::string& text) { std::ofstream(snapshotSidecarPath(recording_)) << text; }
  std::string loadError() {
    try {
      loadSavedSnapshots(recording_);
    } catch (const SnapshotError& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_ = fs::temp_directory_path() / ("ss-hostile-" + std::to_string(::getpid()));
  std::string recording_ = (dir_ / "r.ssr").string();
};

TEST_F(SidecarTest, OutOfRangeTimesAreDamageNotMinusOne) {
  writeSidecar(R"({"version":1,"snapshots":[{"name":"x","from_ns":18446744073709551615}]})");
  EXPECT_NE(loadError().find("snapshot 'x': from_ns must be a whole number of nanoseconds"), std::string::npos) << loadError();
  writeSidecar(R"({"version":1,"snapshots":[{"name":"x","from_ns":-5}]})");
  EXPECT_NE(loadError().find("from_ns"), std::string::npos);
  writeSidecar(R"({"version":1,"snapshots":[{"name":"x","to_ns":2.5}]})");
  EXPECT_NE(loadError().find("to_ns"), std::string::npos);
  writeSidecar(R"({"version":1,"snapshots":[{"name":"x","from_ns":10,"to_ns":10}]})");
  EXPECT_NE(loadError().find("to_ns must be later than from_ns"), std::string::npos);
  writeSidecar(R"({"version":1,"snapshots":[{"name":"x","to_ns":9223372036854775807}]})");
  EXPECT_EQ(loadError(), "");
}

TEST_F(SidecarTest, MistypedFieldsAndDuplicatesAreDamage) {
  const char* damaged[] = {
      R"([])",
      R"({"snapshots":[]})",
      R"({"version":"1","snapshots":[]})",
      R"({"version":1,"snapshots":{}})",
      R"({"version":1,"snapshots":[7]})",
      R"({"version":1,"snapshots":[{"from_ns":1}]})",
      R"({"version":1,"snapshots":[{"name":""}]})",
      R"({"version":1,"snapshots":[{"name":["x"]}]})",
      R"({"version":1,"snapshots":[{"name":"x","where":1}]})",
      R"({"version":1,"snapshots":[{"name":"x","parent":{"a":[[[[]]]]}}]})",
      R"({"version":1,"snapshots":[{"name":"x"},{"name":"x"}]})",
  };
  for (const char* text : damaged) {
    writeSidecar(text);
    EXPECT_NE(loadError().find("is damaged"), std::string::npos) << text << " -> " << loadError();
  }
}

TEST_F(SidecarTest, DeeplyNestedJsonIsDamageNotACrash) {
  writeSidecar(R"({"version":1,"snapshots":[{"name":"x","where":)" + std::string(100000, '[') + std::string(100000, ']') + "}]}");
  EXPECT_NE(loadError().find("where must be a string, not an array"), std::string::npos) << loadError();
}

TEST_F(SidecarTest, AFifoIsRefusedNotWaitedOn) {
  ASSERT_EQ(::mkfifo(snapshotSidecarPath(recording_).c_str(), 0600), 0);
  EXPECT_NE(loadError().find("is not a regular file"), std::string::npos) << loadError();
}

}  // namespace
}  // namespace stackscope::analysis

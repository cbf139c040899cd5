// Stacks as a prefix tree (StackBranch records): what comes back is what was written, old
// files of whole stacks (record 4) read as they did, and a new stack costs its own frames.
#include <gtest/gtest.h>

#include "recording_fixture.h"
#include "stack_shapes.h"

namespace stackscope::format {
namespace {

using testing::Collector;
using testing::tempPath;

Collector readAll(const std::string& path, std::vector<std::string>* warnings = nullptr) {
  RecordingReader reader(path);
  Collector c;
  reader.read(c);
  if (warnings) *warnings = reader.warnings();
  return c;
}

std::string writeShapes(const std::string& name) {
  const std::string path = tempPath(name);
  RecordingWriter w;
  if (!w.open(path)) throw std::runtime_error(w.lastError());
  testing::writeStackShapes(w);
  return path;
}

TEST(StackBranches, EveryShapeComesBackWhole) {
  const std::string path = writeShapes("shapes.ssr");
  std::vector<std::string> warnings;
  const Collector c = readAll(path, &warnings);
  EXPECT_TRUE(warnings.empty());
  const auto shapes = testing::stackShapes();
  ASSERT_EQ(c.samples.size(), shapes.size());
  // Ids are dense from 1 in the order stacks are first written; a stack seen before keeps its id.
  ASSERT_EQ(c.stacks.size(), shapes.size() - 1);
  for (size_t i = 0; i < c.stacks.size(); ++i) EXPECT_EQ(c.stacks[i].id, i + 1);
  EXPECT_EQ(c.samples.back().stack, c.samples[1].stack);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const uint32_t id = c.samples[i].stack;
    ASSERT_GE(id, 1u);
    ASSERT_LE(id, c.stacks.size());
    EXPECT_EQ(c.stacks[id - 1].frames, shapes[i]) << "shape " << i;
  }
  // The agent's truncated stack: 512 frames, then [truncated] as the outermost.
  const std::vector<Frame>& truncated = c.stacks[c.samples[7].stack - 1].frames;
  ASSERT_EQ(truncated.size(), testing::kAgentMaxFrames + 1);
  EXPECT_EQ(truncated.back(), (Frame{testing::kTruncatedMethod, -1}));
  EXPECT_TRUE(c.stacks[c.samples[6].stack - 1].frames.empty());
  std::remove(path.c_str());
}

TEST(StackBranches, FilesOfWholeStacksReadAsTheNewOnes) {
  // The same calls, written by the writer of record 4 (data/flat_stacks_v1.ssr) and by today's.
  const std::string old_path = std::string(STACKSCOPE_FORMAT_TEST_DATA) + "/flat_stacks_v1.ssr";
  RecordingReader old_reader(old_path);
  EXPECT_EQ(old_reader.header().features, uint32_t{kFeatureZstdChunks});
  const Collector old_file = readAll(old_path);
  const std::string path = writeShapes("shapes-new.ssr");
  const Collector new_file = readAll(path);
  ASSERT_EQ(old_file.stacks.size(), new_file.stacks.size());
  for (size_t i = 0; i < old_file.stacks.size(); ++i) {
    EXPECT_EQ(old_file.stacks[i].id, new_file.stacks[i].id);
    EXPECT_EQ(old_file.stacks[i].frames, new_file.stacks[i].frames) << "stack " << old_file.stacks[i].id;
  }
  ASSERT_EQ(old_file.samples.size(), new_file.samples.size());
  for (size_t i = 0; i < old_file.samples.size(); ++i) EXPECT_EQ(old_file.samples[i].stack, new_file.samples[i].stack);
  std::remove(path.c_str());
}

TEST(StackBranches, NewFilesAreRefusedByReadersThatDoNotKnowThem) {
  const std::string path = writeShapes("shapes-bit.ssr");
  RecordingReader reader(path);
  EXPECT_EQ(reader.header().features, uint32_t{kFeatureZstdChunks | kFeatureStackBranches | kFeatureLaneChecksums | kFeatureSampleRuns | kFeatureLineDeltas});
  // A required bit: a reader from before StackBranch refuses the file instead of reading
  // samples without stacks (its known bits were kFeatureZstdChunks alone).
  EXPECT_NE(kFeatureStackBranches & kRequiredFeatureMask, 0u);
  std::remove(path.c_str());
}

TEST(StackBranches, AStackThatExtendsAKnownOneCostsItsNewFrame) {
  const std::string path = tempPath("extend.ssr");
  RecordingWriter w;
  ASSERT_TRUE(w.open(path));
  std::vector<Frame> deep;  // innermost first
  for (uint32_t i = 0; i < 200; ++i) deep.push_back({1000 + i, static_cast<int32_t>(i)});
  w.internStack(deep.data(), deep.size());
  ASSERT_TRUE(w.flush());
  deep.insert(deep.begin(), Frame{5000, 7});  // a call one level deeper
  const uint32_t deeper = w.internStack(deep.data(), deep.size());
  ASSERT_TRUE(w.flush());
  const std::vector<Frame> caller(deep.begin() + 150, deep.end());  // its caller 150 levels up
  const uint32_t outer = w.internStack(caller.data(), caller.size());
  ASSERT_TRUE(w.finish(10));

  RecordingReader reader(path);
  const std::vector<ChunkInfo> maps = reader.mapChunks();
  ASSERT_EQ(maps.size(), 3u);
  EXPECT_GT(maps[0].raw_size, 200u * 3);  // 200 frames of 2-byte method ids, 1-2 byte bcis
  // type, length, id, base, shared (200: 2 bytes), count, method (2 bytes), bci
  EXPECT_LE(maps[1].raw_size, 10u);
  EXPECT_LE(maps[2].raw_size, 8u);  // no frame of its own: a prefix of a known stack
  Collector c;
  reader.read(c);
  ASSERT_EQ(c.stacks.size(), 3u);
  EXPECT_EQ(c.stacks[deeper - 1].frames, deep);
  EXPECT_EQ(c.stacks[outer - 1].frames, caller);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stackscope::format

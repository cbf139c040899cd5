// The frame-pointer walker (native/frame_pointer_walk.h) on a real stack: a program with the
// known chain main -> outer -> middle -> leaf, walked from a SIGPROF's ucontext in leaf
// (tests/native_programs/frame_pointer_chain.c), then symbolized.
#include <gtest/gtest.h>

#include "child_process.h"

namespace stackscope::native {
namespace {

TEST(FramePointerWalk, WalksAKnownChainFromASignalContextInOrder) {
  testing::ChildProcess chain(FRAME_POINTER_CHAIN, {});
  ASSERT_GT(chain.pid(), 0);
  std::vector<std::string> frames = chain.readAllLines();
  EXPECT_EQ(chain.finish(), 0);
  ASSERT_GE(frames.size(), 4u);
  EXPECT_EQ(frames[0], "leaf");
  EXPECT_EQ(frames[1], "middle");
  EXPECT_EQ(frames[2], "outer");
  EXPECT_EQ(frames[3], "main");
}

}  // namespace
}  // namespace stackscope::native

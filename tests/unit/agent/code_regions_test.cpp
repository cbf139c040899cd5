#include "agent/code_regions.h"

#include <gtest/gtest.h>

#include <string>

namespace stackscope::agent {
namespace {

TEST(CodeRegions, FindsTheRegionHoldingAPcHalfOpen) {
  CodeRegions regions;
  regions.add("jbyte_arraycopy", 0x1000, 0x100);
  regions.add("sha256_implCompressMB", 0x2000, 0x40);
  EXPECT_EQ(regions.size(), 2u);
  ASSERT_EQ(regions.find(0x1000), 0);
  EXPECT_STREQ(regions.name(regions.find(0x10ff)), "jbyte_arraycopy");
  EXPECT_STREQ(regions.name(regions.find(0x2020)), "sha256_implCompressMB");
  EXPECT_EQ(regions.find(0x1100), -1);  // one past the end
  EXPECT_EQ(regions.find(0xfff), -1);
  EXPECT_EQ(regions.find(0), -1);
}

TEST(CodeRegions, IgnoresRepeatsEmptyAndWrappingRegions) {
  CodeRegions regions;
  regions.add("stub", 0x1000, 0x10);
  regions.add("stub", 0x1000, 0x10);  // GenerateEvents replays what was announced
  regions.add("empty", 0x3000, 0);
  regions.add("wraps", UINTPTR_MAX - 4, 16);
  regions.add(nullptr, 0x4000, 8);
  EXPECT_EQ(regions.size(), 2u);
  EXPECT_STREQ(regions.name(regions.find(0x4000)), "unnamed");
  EXPECT_EQ(regions.find(0x3000), -1);
}

TEST(CodeRegions, AnAdaptersFingerprintIsLeftOutOfItsName) {
  CodeRegions regions;
  regions.add("I2C/C2I adapters(0xbbbebebe)", 0x1000, 16);
  regions.add("I2C/C2I adapters(0xbbbeaaaa)", 0x2000, 16);
  regions.add("odd(0xnothex)", 0x3000, 16);
  regions.add("(0x12)", 0x4000, 16);
  EXPECT_STREQ(regions.name(regions.find(0x1000)), "I2C/C2I adapters");
  EXPECT_STREQ(regions.name(regions.find(0x2000)), "I2C/C2I adapters");
  EXPECT_STREQ(regions.name(regions.find(0x3000)), "odd(0xnothex)");
  EXPECT_STREQ(regions.name(regions.find(0x4000)), "(0x12)");
}

TEST(CodeRegions, AnUnknownIndexHasAName) {
  CodeRegions regions;
  EXPECT_STREQ(regions.name(-1), "unknown");
  EXPECT_STREQ(regions.name(5), "unknown");
}

TEST(CodeRegions, DropsAndCountsRegionsBeyondItsCapacity) {
  CodeRegions regions;
  for (uintptr_t i = 0; i < CodeRegions::kCapacity + 3; ++i) regions.add("vtable stub", 0x10000 + i * 16, 16);
  EXPECT_EQ(regions.size(), CodeRegions::kCapacity);
  EXPECT_EQ(regions.dropped(), 3u);
  EXPECT_EQ(regions.find(0x10000 + (CodeRegions::kCapacity + 1) * 16), -1);
  EXPECT_EQ(regions.find(0x10000 + (CodeRegions::kCapacity - 1) * 16),
            static_cast<int32_t>(CodeRegions::kCapacity - 1));
}

}  // namespace
}  // namespace stackscope::agent

// The names of a rotated recording's files (format/part_names.h).
#include "format/part_names.h"

#include <gtest/gtest.h>

namespace stackscope::format {
namespace {

TEST(PartNames, NumberGoesBeforeTheExtension) {
  EXPECT_EQ(partName("run.ssr", 1), "run-1.ssr");
  EXPECT_EQ(partName("/d/x.y/run.ssr", 12), "/d/x.y/run-12.ssr");
  EXPECT_EQ(partName("/d/x.y/run", 3), "/d/x.y/run-3");
  EXPECT_EQ(partName(".ssr", 2), ".ssr-2");
  EXPECT_EQ(partName("run.4242.ssr", 2), "run.4242-2.ssr");
  EXPECT_EQ(partName("/d/run.ssr", 0), "/d/run.ssr");  // part 0: the file the recording began in
}

TEST(PartNames, NumberIsReadBackFromPartsOnly) {
  EXPECT_EQ(partNumber("run.ssr", "run-1.ssr"), 1u);
  EXPECT_EQ(partNumber("run.ssr", "run-123.ssr"), 123u);
  EXPECT_EQ(partNumber("/d/run", "/d/run-7"), 7u);
  for (const char* other : {"run.ssr", "run-.ssr", "run-01.ssr", "run-1x.ssr", "run-1.ssr.cache", "run.1.ssr",
                            "walk-1.ssr", "run-1-2.ssr", "run--1.ssr"})
    EXPECT_FALSE(partNumber("run.ssr", other)) << other;
  for (uint64_t n : {1ull, 9ull, 10ull, 4242ull}) EXPECT_EQ(partNumber("a.b.ssr", partName("a.b.ssr", n)), n);
}

}  // namespace
}  // namespace stackscope::format

#include <gtest/gtest.h>

#include "common/duration.h"

namespace stackscope {
namespace {

TEST(Duration, ParsesUnitsAndCompounds) {
  EXPECT_EQ(parseDuration("10ms"), 10000000);
  EXPECT_EQ(parseDuration("250us"), 250000);
  EXPECT_EQ(parseDuration("500ns"), 500);
  EXPECT_EQ(parseDuration("2s"), 2000000000);
  EXPECT_EQ(parseDuration("5m"), 300000000000);
  EXPECT_EQ(parseDuration("1h40m"), 6000000000000);
  EXPECT_EQ(parseDuration("1m40s"), 100000000000);
  EXPECT_EQ(parseDuration("0s"), 0);
}

TEST(Duration, RefusesWhatIsNotADuration) {
  for (const char* bad : {"", "10", "ms", "10x", "-1s", "10 ms", "s10", "99999999999999999999s", "9223372036854775807h"})
    EXPECT_FALSE(parseDuration(bad).has_value()) << bad;
}

TEST(Duration, ParsesFractionsExactlyToTheNanosecond) {
  EXPECT_EQ(parseDuration("2.6s"), 2600000000);
  EXPECT_EQ(parseDuration("1.5m"), 90000000000);
  EXPECT_EQ(parseDuration("0.25h"), 900000000000);
  EXPECT_EQ(parseDuration("1h2.5m"), 3750000000000);
  EXPECT_EQ(parseDuration("0.1s"), 100000000);  // 0.1 has no exact double: must still be exact
  EXPECT_EQ(parseDuration("1.000000001s"), 1000000001);
  EXPECT_EQ(parseDuration("0.333333333333s"), std::nullopt);  // finer than a nanosecond
  EXPECT_EQ(parseDuration("2.5us"), 2500);
  EXPECT_EQ(parseDuration("2562047h47m16.854775807s"), INT64_MAX);
  EXPECT_EQ(parseDuration("2562047h47m16.854775808s"), std::nullopt);
}

TEST(Duration, RefusesMalformedFractions) {
  for (const char* bad : {"1.s", ".5s", "1..5s", "1.5", "1.5.5s", "1.5ns", "0.0001us", "1,5s", "1.-5s"})
    EXPECT_FALSE(parseDuration(bad).has_value()) << bad;
  // Found by fuzz_where: a fraction of 60 zeros overflowed the 128-bit scale.
  EXPECT_FALSE(parseDuration("0." + std::string(60, '0') + "s").has_value());
  EXPECT_EQ(parseDuration("1.000000000000000000s"), 1000000000);  // 18 digits still read
}

TEST(Duration, FormatsForPeople) {
  EXPECT_EQ(formatDuration(10000000), "10ms");
  EXPECT_EQ(formatDuration(2500000000), "2.5s");
  EXPECT_EQ(formatDuration(6000000000000), "1h40m");
  EXPECT_EQ(formatDuration(100000000000), "1m40.0s");
  EXPECT_EQ(formatDuration(250000), "250us");
  EXPECT_EQ(formatDuration(7), "7ns");
  EXPECT_EQ(formatDuration(0), "0s");
}

}  // namespace
}  // namespace stackscope

#include "common/class_glob.h"

#include <gtest/gtest.h>

namespace stackscope {
namespace {

TEST(ClassGlob, BracketsAreLiteralAndStarsSpanDots) {
  EXPECT_TRUE(matchClassGlob("byte[]", "byte[]"));
  EXPECT_FALSE(matchClassGlob("byte[]", "byte[][]"));
  EXPECT_TRUE(matchClassGlob("byte[][]", "byte[][]"));  // fnmatch would read [][] as a set
  EXPECT_FALSE(matchClassGlob("byte[]", "byteX"));
  EXPECT_TRUE(matchClassGlob("com.shop.*", "com.shop.Cart"));
  EXPECT_TRUE(matchClassGlob("com.shop.*", "com.shop.model.Item[]"));
  EXPECT_FALSE(matchClassGlob("com.shop.*", "com.shopping.Cart"));
  EXPECT_TRUE(matchClassGlob("*[]", "java.lang.Object[]"));
  EXPECT_FALSE(matchClassGlob("*[]", "java.lang.Object"));
  EXPECT_TRUE(matchClassGlob("java.lang.?tring", "java.lang.String"));
  EXPECT_TRUE(matchClassGlob("*", ""));
  EXPECT_FALSE(matchClassGlob("", "a"));
  EXPECT_TRUE(matchClassGlob("a*b*c", "aXXbYYbZc"));
  EXPECT_FALSE(matchClassGlob("a*b*c", "aXXbYYbZ"));
}

}  // namespace
}  // namespace stackscope

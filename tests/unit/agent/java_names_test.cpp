#include "agent/java_names.h"

#include <gtest/gtest.h>

namespace stackscope::agent {
namespace {

TEST(JavaNames, ClassSignatures) {
  EXPECT_EQ(javaNameFromSignature("Ljava/lang/String;"), "java.lang.String");
  EXPECT_EQ(javaNameFromSignature("Lpkg/Outer$Inner;"), "pkg.Outer$Inner");
  EXPECT_EQ(javaNameFromSignature("LNoPackage;"), "NoPackage");
}

TEST(JavaNames, Arrays) {
  EXPECT_EQ(javaNameFromSignature("[I"), "int[]");
  EXPECT_EQ(javaNameFromSignature("[[J"), "long[][]");
  EXPECT_EQ(javaNameFromSignature("[Ljava/lang/Object;"), "java.lang.Object[]");
  EXPECT_EQ(javaNameFromSignature("[[Lpkg/A$B;"), "pkg.A$B[][]");
}

TEST(JavaNames, Primitives) {
  EXPECT_EQ(javaNameFromSignature("Z"), "boolean");
  EXPECT_EQ(javaNameFromSignature("B"), "byte");
  EXPECT_EQ(javaNameFromSignature("C"), "char");
  EXPECT_EQ(javaNameFromSignature("S"), "short");
  EXPECT_EQ(javaNameFromSignature("F"), "float");
  EXPECT_EQ(javaNameFromSignature("D"), "double");
}

TEST(JavaNames, HiddenClassKeepsItsSuffix) {
  EXPECT_EQ(javaNameFromSignature("Lpkg/Main$$Lambda$14.0x0000000800c03000;"),
            "pkg.Main$$Lambda$14.0x0000000800c03000");
}

TEST(JavaNames, MalformedInputIsKeptReadable) {
  EXPECT_EQ(javaNameFromSignature(""), "");
  EXPECT_EQ(javaNameFromSignature("L"), "L");
  EXPECT_EQ(javaNameFromSignature("java/lang/String"), "java.lang.String");
  EXPECT_EQ(javaNameFromSignature("Lunterminated/Name"), "Lunterminated.Name");
  EXPECT_EQ(javaNameFromSignature("["), "[");
  EXPECT_EQ(javaNameFromSignature("[Q"), "[Q");
}

}  // namespace
}  // namespace stackscope::agent

#include "protocol/message.h"

#include <gtest/gtest.h>

#include "protocol/token.h"

namespace stackscope::protocol {
namespace {

TEST(Message, OnlyJsonObjectsParse) {
  Json out;
  EXPECT_TRUE(parseObject(R"({"cmd":"status","id":3})", out));
  EXPECT_EQ(out["cmd"], "status");
  for (const char* bad : {"", "[1,2]", "\"text\"", "42", "{", "{\"a\":}", "null", "{} trailing", "\xff\xfe"}) {
    Json untouched = Json{{"kept", true}};
    EXPECT_FALSE(parseObject(bad, untouched)) << bad;
    EXPECT_TRUE(untouched.contains("kept"));
  }
}

TEST(Message, CheckedGettersRefuseWrongTypes) {
  Json object;
  ASSERT_TRUE(parseObject(R"({"s":"x","i":7,"b":true,"f":1.5,"big":18446744073709551615})", object));
  std::string s;
  int64_t i = 0;
  bool b = false;
  EXPECT_TRUE(getString(object, "s", s));
  EXPECT_EQ(s, "x");
  EXPECT_FALSE(getString(object, "i", s));
  EXPECT_FALSE(getString(object, "missing", s));
  EXPECT_TRUE(getInt(object, "i", i));
  EXPECT_EQ(i, 7);
  EXPECT_FALSE(getInt(object, "f", i));
  EXPECT_FALSE(getInt(object, "s", i));
  EXPECT_TRUE(getInt(object, "big", i));
  EXPECT_EQ(i, INT64_MAX);  // clamped, not wrapped to -1
  EXPECT_TRUE(getBool(object, "b", b));
  EXPECT_TRUE(b);
  EXPECT_FALSE(getBool(object, "i", b));
}

TEST(Message, RepliesEchoTheIdAndInvalidUtf8IsReplaced) {
  Json request{{"cmd", "mark"}, {"id", 12}};
  const Json ok = okReply(request);
  EXPECT_EQ(ok["id"], 12);
  EXPECT_EQ(ok["ok"], true);
  const Json refused = errorReply(Json{{"cmd", "x"}}, error::kUnknownCommand, std::string("bad \xff name"));
  EXPECT_FALSE(refused.contains("id"));
  EXPECT_EQ(refused["error"], "unknown_command");
  const std::string text = encode(refused);
  Json back;
  ASSERT_TRUE(parseObject(text, back));  // valid JSON whatever the bytes were
  EXPECT_EQ(back["ok"], false);
}

TEST(Token, SixtyFourHexDigitsEachTimeDifferent) {
  const std::string a = newToken();
  const std::string b = newToken();
  ASSERT_EQ(a.size(), 64u);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
  EXPECT_TRUE(sameToken(a, a));
  EXPECT_FALSE(sameToken(a, b));
  EXPECT_FALSE(sameToken(a, a.substr(0, 63)));
  EXPECT_FALSE(sameToken("", ""));  // an empty token never authenticates
}

}  // namespace
}  // namespace stackscope::protocol

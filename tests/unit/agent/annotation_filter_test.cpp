#include "agent/annotation_filter.h"

#include <gtest/gtest.h>

#include "agent/options.h"

namespace stackscope::agent {
namespace {

constexpr int kUser = 0, kSession = 1, kRequest = 2, kApplication = 3, kComponent = 4;

AnnotationValues values(std::initializer_list<std::pair<int, const char*>> fields) {
  AnnotationValues v;
  for (const auto& [field, text] : fields) v.assign(field, text);
  return v;
}

AnnotationFilter parsed(std::string_view text) {
  AnnotationFilter filter;
  std::string why;
  EXPECT_TRUE(filter.parse(text, why)) << text << ": " << why;
  return filter;
}

std::string error(std::string_view text) {
  AnnotationFilter filter;
  std::string why;
  EXPECT_FALSE(filter.parse(text, why)) << text;
  EXPECT_TRUE(filter.empty()) << "a failed parse must leave the filter unchanged";
  return why;
}

TEST(AnnotationFilter, EmptyFilterMatchesEverything) {
  AnnotationFilter filter;
  EXPECT_TRUE(filter.empty());
  EXPECT_TRUE(filter.matches(values({})));
  EXPECT_TRUE(filter.matches(values({{kUser, "x"}})));
}

TEST(AnnotationFilter, ValuesOfOneKeyAreAlternatives) {
  const AnnotationFilter filter = parsed("user:u1;user:u2");
  EXPECT_EQ(filter.globs(kUser), (std::vector<std::string>{"u1", "u2"}));
  EXPECT_TRUE(filter.matches(values({{kUser, "u1"}})));
  EXPECT_TRUE(filter.matches(values({{kUser, "u2"}, {kRequest, "r"}})));
  EXPECT_FALSE(filter.matches(values({{kUser, "u3"}})));
  EXPECT_FALSE(filter.matches(values({{kUser, "u10"}}))) << "a glob matches the whole value";
}

TEST(AnnotationFilter, DifferentKeysMustAllHold) {
  const AnnotationFilter filter = parsed("user:u1;user:u2;application:shop*");
  EXPECT_TRUE(filter.matches(values({{kUser, "u1"}, {kApplication, "shop"}})));
  EXPECT_TRUE(filter.matches(values({{kUser, "u2"}, {kApplication, "shop-eu"}})));
  EXPECT_FALSE(filter.matches(values({{kUser, "u1"}, {kApplication, "bank"}})));
  EXPECT_FALSE(filter.matches(values({{kUser, "u1"}}))) << "an unset field does not match";
  EXPECT_FALSE(filter.matches(values({{kApplication, "shop"}})));
}

TEST(AnnotationFilter, UnannotatedAndUnsetNeverMatchAKey) {
  const AnnotationFilter filter = parsed("session:*");
  EXPECT_FALSE(filter.matches(values({})));
  EXPECT_FALSE(filter.matches(values({{kUser, "u1"}})));
  EXPECT_TRUE(filter.matches(values({{kSession, ""}}))) << "* matches a set but empty value";
}

TEST(AnnotationFilter, EveryKeyAndFnmatchGlobs) {
  const AnnotationFilter filter = parsed("request:r-??;component:[ab]*;session:s:*");
  EXPECT_EQ(filter.globs(kSession), (std::vector<std::string>{"s:*"})) << "split at the first ':'";
  EXPECT_TRUE(filter.matches(values({{kRequest, "r-12"}, {kComponent, "api"}, {kSession, "s:9"}})));
  EXPECT_FALSE(filter.matches(values({{kRequest, "r-123"}, {kComponent, "api"}, {kSession, "s:9"}})));
  EXPECT_FALSE(filter.matches(values({{kRequest, "r-12"}, {kComponent, "db"}, {kSession, "s:9"}})));
  EXPECT_TRUE(parsed("user:*/x").matches(values({{kUser, "a/b/x"}}))) << "* crosses '/'";
}

TEST(AnnotationFilter, NonAsciiIsMatchedOnItsBytes) {
  const AnnotationFilter filter = parsed("user:用户*");
  EXPECT_TRUE(filter.matches(values({{kUser, "用户一"}})));
  EXPECT_FALSE(filter.matches(values({{kUser, "user"}})));
}

TEST(AnnotationFilter, EmptyEntriesAreSkippedAndParseAdds) {
  AnnotationFilter filter = parsed(";user:a;;");
  std::string why;
  ASSERT_TRUE(filter.parse("user:b", why)) << why;
  EXPECT_EQ(filter.globs(kUser), (std::vector<std::string>{"a", "b"}));
}

// status shows the filter in force in the filter= syntax: entries by field, read back as given.
TEST(AnnotationFilter, TextIsTheFilterSyntaxAndParsesBack) {
  EXPECT_EQ(AnnotationFilter().text(), "");
  const AnnotationFilter filter = parsed("application:shop*;user:u1;;user:u:2");
  EXPECT_EQ(filter.text(), "user:u1;user:u:2;application:shop*");
  const AnnotationFilter again = parsed(filter.text());
  for (int field = 0; field < kAnnotationFields; ++field) EXPECT_EQ(again.globs(field), filter.globs(field));
}

TEST(AnnotationFilter, MalformedEntriesSayWhy) {
  EXPECT_EQ(error(""), "expected KEY:GLOB entries separated by ';', e.g. user:u1;application:shop*");
  EXPECT_EQ(error(";;"), "expected KEY:GLOB entries separated by ';', e.g. user:u1;application:shop*");
  EXPECT_EQ(error("user:u1;u2"), "expected KEY:GLOB, not 'u2'");
  EXPECT_EQ(error("user=u1"), "expected KEY:GLOB, not 'user=u1' (the filter is written user:u1, not user=u1 as in --where)");
  EXPECT_EQ(error("colour:red"), "unknown key 'colour' (known: user, session, request, application, component)");
  EXPECT_EQ(error("user:"), "empty pattern for user (use * for any value)");
  EXPECT_EQ(error("User:u1"), "unknown key 'User' (known: user, session, request, application, component)");
}

TEST(AnnotationFilter, FieldNames) {
  EXPECT_EQ(annotationFieldFromName("user"), kUser);
  EXPECT_EQ(annotationFieldFromName("component"), kComponent);
  EXPECT_EQ(annotationFieldFromName("users"), -1);
}

TEST(AnnotationFilterOption, ParsedWithTheOtherOptions) {
  const ParseResult r = parseOptions("event=wall,filter=user:u1;application:shop*,filter=user:u2,file=x.ssr", 1);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.options.filter.globs(kUser), (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ(r.options.filter.globs(kApplication), (std::vector<std::string>{"shop*"}));
  EXPECT_EQ(r.options.file, "x.ssr");
  EXPECT_TRUE(parseOptions("", 1).options.filter.empty());
}

TEST(AnnotationFilterOption, BadFilterIsTheUsualOneLineMessage) {
  const ParseResult r = parseOptions("filter=who:u1,strict", 1);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.strict);
  EXPECT_EQ(r.error,
            "stackscope: bad agent option 'filter=who:u1': unknown key 'who' (known: user, session, request, "
            "application, component)");
  EXPECT_EQ(parseOptions("filter", 1).error, "stackscope: bad agent option 'filter': expected filter=VALUE");
  EXPECT_EQ(parseOptions("filter=", 1).error,
            "stackscope: bad agent option 'filter=': expected KEY:GLOB entries separated by ';', e.g. "
            "user:u1;application:shop*");
}

}  // namespace
}  // namespace stackscope::agent

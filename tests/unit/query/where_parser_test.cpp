#include <gtest/gtest.h>

#include "analysis/where_parser.h"

namespace stackscope::analysis {
namespace {

// Renders a tree back as a fully parenthesised string, to check structure and precedence.
std::string show(const WhereNode& node) {
  switch (node.kind) {
    case WhereNode::Kind::Condition: {
      const char* op = node.op == WhereOp::Equal ? "=" : node.op == WhereOp::NotEqual ? "!=" : "~";
      return std::string(whereFieldName(node.field)) + op + node.value;
    }
    case WhereNode::Kind::Not: return "not(" + show(*node.children[0]) + ")";
    default: {
      std::string out = "(";
      for (size_t i = 0; i < node.children.size(); ++i)
        out += (i ? (node.kind == WhereNode::Kind::And ? " AND " : " OR ") : "") + show(*node.children[i]);
      return out + ")";
    }
  }
}

std::string parsed(const std::string& text) { return show(*parseWhere(text)); }

TEST(WhereParser, ConditionsAndPrecedence) {
  EXPECT_EQ(parsed("user=u1"), "user=u1");
  EXPECT_EQ(parsed("user=u1 and request=r2 or thread=main"), "((user=u1 AND request=r2) OR thread=main)");
  EXPECT_EQ(parsed("user=u1 and (request=r2 or thread=main)"), "(user=u1 AND (request=r2 OR thread=main))");
  EXPECT_EQ(parsed("not state=sleeping and NOT not tid=3"), "(not(state=sleeping) AND not(not(tid=3)))");
  EXPECT_EQ(parsed("path~pkg.Class.method"), "path~pkg.Class.method");
  EXPECT_EQ(parsed("class!=java.lang.*"), "class!=java.lang.*");
  EXPECT_EQ(parsed("thread = \"worker 1\" OR thread='pool-\\'2\\''"), "(thread=worker 1 OR thread=pool-'2')");
  EXPECT_EQ(parsed("method=a.B$C.d and package=a"), "(method=a.B$C.d AND package=a)");
  EXPECT_EQ(parsed("user=jürgen"), "user=jürgen");
}

void expectError(const std::string& text, size_t position, const std::string& fragment) {
  try {
    parseWhere(text);
    FAIL() << "no error for: " << text;
  } catch (const WhereError& e) {
    EXPECT_EQ(e.position(), position) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(WhereParser, ErrorsPointAtThePosition) {
  expectError("", 0, "empty expression");
  expectError("usr=u1", 0, "unknown field 'usr'");
  expectError("user=u1 and usr=u2", 12, "unknown field 'usr'");
  expectError("user u1", 5, "expected '=', '!=' or '~'");
  expectError("user=", 5, "expected a value");
  expectError("(user=u1", 8, "expected ')'");
  expectError("user=u1)", 7, "expected 'and', 'or' or the end");
  expectError("user=u1 and", 11, "expected a condition");
  expectError("thread~main", 6, "applies to 'path' only");
  expectError("path=a.b", 4, "'path' takes '~'");
  expectError("state=sleepin", 6, "unknown state 'sleepin'");
  expectError("user=\"open", 5, "unterminated");
  expectError("user=u1 & user=u2", 8, "unexpected character '&'");
}

TEST(WhereParser, MessageShowsACaretUnderThePosition) {
  try {
    parseWhere("user=u1 and usr=u2");
    FAIL();
  } catch (const WhereError& e) {
    EXPECT_NE(std::string(e.what()).find("user=u1 and usr=u2\n  " + std::string(12, ' ') + "^"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stackscope::analysis

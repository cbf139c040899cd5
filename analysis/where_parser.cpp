#include "analysis/where_parser.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "analysis/event_kinds.h"
#include "format/records.h"

namespace stackscope::analysis {

namespace {

struct FieldName {
  std::string_view name;
  WhereField field;
};
constexpr FieldName kFields[] = {
    {"thread", WhereField::Thread},   {"tid", WhereField::Tid},
    {"class", WhereField::Class},     {"method", WhereField::Method},
    {"package", WhereField::Package}, {"path", WhereField::Path},
    {"state", WhereField::State},     {"event", WhereField::Event},
    {"user", WhereField::User},       {"session", WhereField::Session},
    {"request", WhereField::Request}, {"application", WhereField::Application},
    {"component", WhereField::Component}, {"exception", WhereField::Exception},
    {"collector", WhereField::Collector}, {"cause", WhereField::Cause},
    {"lock", WhereField::Lock},
};

std::string fieldList() {
  std::string list;
  for (const FieldName& f : kFields) list += (list.empty() ? "" : ", ") + std::string(f.name);
  return list;
}

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("._$*?-/:#@+[]").find(c) != std::string_view::npos ||
         static_cast<unsigned char>(c) >= 0x80;  // UTF-8 bytes of non-ASCII names
}

struct Token {
  enum class Kind { Word, Quoted, Op, LParen, RParen, End } kind;
  std::string text;
  size_t position;
};

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) { next(); }

  std::unique_ptr<WhereNode> parse() {
    if (token_.kind == Token::Kind::End) throw error(token_.position, "empty expression: expected a condition such as user=u1");
    auto node = parseOr();
    if (token_.kind != Token::Kind::End) throw error(token_.position, "expected 'and', 'or' or the end, found '" + token_.text + "'");
    return node;
  }

 private:
  WhereError error(size_t position, const std::string& message) const { return WhereError(text_, position, message); }

  bool isKeyword(const char* keyword) const {
    if (token_.kind != Token::Kind::Word || token_.text.size() != std::string_view(keyword).size()) return false;
    for (size_t i = 0; i < token_.text.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(token_.text[i])) != keyword[i]) return false;
    return true;
  }

  std::unique_ptr<WhereNode> combine(WhereNode::Kind kind, const char* keyword, std::unique_ptr<WhereNode> (Parser::*operand)()) {
    auto first = (this->*operand)();
    if (!isKeyword(keyword)) return first;
    auto node = std::make_unique<WhereNode>();
    node->kind = kind;
    node->children.push_back(std::move(first));
    while (isKeyword(keyword)) {
      next();
      node->children.push_back((this->*operand)());
    }
    return node;
  }

  std::unique_ptr<WhereNode> parseOr() { return combine(WhereNode::Kind::Or, "or", &Parser::parseAnd); }
  std::unique_ptr<WhereNode> parseAnd() { return combine(WhereNode::Kind::And, "and", &Parser::parseUnary); }

  std::unique_ptr<WhereNode> parseUnary() {
    // The parser, the compiled filter and the tree's destructor all recurse once per level:
    // a hostile "((((…" must fail here with a message, not overflow the stack later.
    if (depth_ >= kMaxWhereDepth)
      throw error(token_.position, "nested deeper than " + std::to_string(kMaxWhereDepth) + " levels of parentheses or 'not'");
    ++depth_;
    auto node = parseNested();
    --depth_;
    return node;
  }

  std::unique_ptr<WhereNode> parseNested() {
    if (isKeyword("not")) {
      next();
      auto node = std::make_unique<WhereNode>();
      node->kind = WhereNode::Kind::Not;
      node->children.push_back(parseUnary());
      return node;
    }
    if (token_.kind == Token::Kind::LParen) {
      const size_t open = token_.position;
      next();
      auto inner = parseOr();
      if (token_.kind != Token::Kind::RParen) throw error(token_.position, "expected ')' to close the '(' at position " + std::to_string(open + 1));
      next();
      return inner;
    }
    return parseCondition();
  }

  std::unique_ptr<WhereNode> parseCondition() {
    if (token_.kind != Token::Kind::Word) throw error(token_.position, "expected a condition such as user=u1, found " + describe(token_));
    auto node = std::make_unique<WhereNode>();
    node->position = token_.position;
    const FieldName* field = nullptr;
    for (const FieldName& f : kFields)
      if (f.name == token_.text) field = &f;
    if (!field) throw error(token_.position, "unknown field '" + token_.text + "': expected one of " + fieldList());
    node->field = field->field;
    next();
    if (token_.kind != Token::Kind::Op) throw error(token_.position, "expected '=', '!=' or '~' after '" + std::string(field->name) + "'");
    node->op = token_.text == "=" ? WhereOp::Equal : token_.text == "!=" ? WhereOp::NotEqual : WhereOp::Contains;
    if (node->op == WhereOp::Contains && node->field != WhereField::Path)
      throw error(token_.position, "'~' (somewhere on the stack) applies to 'path' only; use '=' or '!='");
    if (node->op != WhereOp::Contains && node->field == WhereField::Path)
      throw error(token_.position, "'path' takes '~' (a method anywhere on the stack), e.g. path~pkg.Class.method");
    next();
    if (token_.kind != Token::Kind::Word && token_.kind != Token::Kind::Quoted)
      throw error(token_.position, "expected a value after the operator, found " + describe(token_));
    node->value = token_.text;
    checkValue(*node);
    next();
    return node;
  }

  void checkValue(const WhereNode& node) const {
    const std::string problem = whereValueProblem(node.field, node.value);
    if (!problem.empty()) throw error(token_.position, problem);
  }

  static std::string describe(const Token& token) {
    return token.kind == Token::Kind::End ? "the end of the expression" : "'" + token.text + "'";
  }

  void next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    const size_t start = pos_;
    if (pos_ >= text_.size()) {
      token_ = {Token::Kind::End, "", start};
      return;
    }
    const char c = text_[pos_];
    if (c == '(' || c == ')') {
      ++pos_;
      token_ = {c == '(' ? Token::Kind::LParen : Token::Kind::RParen, std::string(1, c), start};
    } else if (c == '=' || c == '~') {
      ++pos_;
      token_ = {Token::Kind::Op, std::string(1, c), start};
    } else if (c == '!' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '=') {
      pos_ += 2;
      token_ = {Token::Kind::Op, "!=", start};
    } else if (c == '"' || c == '\'') {
      token_ = {Token::Kind::Quoted, quoted(c), start};
    } else if (isWordChar(c)) {
      while (pos_ < text_.size() && isWordChar(text_[pos_])) ++pos_;
      if (token_.kind == Token::Kind::Op) pos_ = signatureEnd(pos_);
      token_ = {Token::Kind::Word, text_.substr(start, pos_ - start), start};
    } else {
      throw error(start, std::string("unexpected character '") + c + "'");
    }
  }

  // A value glued to "(…)" is a method with its parameters: `method=Main.work(int, String)`,
  // `path~Main.work(I)D`. Only right after an operator, so "not(" still opens a group.
  size_t signatureEnd(size_t at) const {
    if (at >= text_.size() || text_[at] != '(') return at;
    const size_t close = text_.find_first_of("()", at + 1);
    if (close == std::string::npos || text_[close] != ')') return at;
    at = close + 1;
    while (at < text_.size() && (isWordChar(text_[at]) || text_[at] == ';')) ++at;  // a return descriptor
    return at;
  }

  std::string quoted(char quote) {
    const size_t start = pos_++;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      value += text_[pos_++];
    }
    if (pos_ >= text_.size()) throw error(start, "unterminated quoted value");
    ++pos_;
    return value;
  }

  const std::string& text_;
  size_t pos_ = 0;
  size_t depth_ = 0;  // parseUnary calls in progress
  Token token_{Token::Kind::End, "", 0};
};

}  // namespace

namespace {
// The part of a long expression around `position` (with "..." where it was cut), and the
// caret's column in it: a hostile expression of 30 000 characters is not echoed whole.
std::string excerptWithCaret(const std::string& expression, size_t position) {
  constexpr size_t kContext = 60;
  const size_t from = position > kContext ? position - kContext : 0;
  const size_t to = std::min(expression.size(), position + kContext);
  const std::string head = from > 0 ? "..." : "";
  const std::string tail = to < expression.size() ? "..." : "";
  return head + expression.substr(from, to - from) + tail + "\n  " + std::string(head.size() + position - from, ' ') + "^";
}
}  // namespace

WhereError::WhereError(const std::string& expression, size_t position, const std::string& message)
    : std::runtime_error("--where: " + message + " (at position " + std::to_string(position + 1) + ")\n  " +
                         excerptWithCaret(expression, position)),
      position_(position) {}

std::unique_ptr<WhereNode> parseWhere(const std::string& expression) { return Parser(expression).parse(); }

// Fields with a closed set of values refuse a misspelt one instead of matching nothing.
std::string whereValueProblem(WhereField field, const std::string& value) {
  std::vector<std::string> allowed;
  if (field == WhereField::State)
    for (int s = 0; s < format::kThreadStateCount; ++s) allowed.push_back(format::threadStateName(static_cast<format::ThreadState>(s)));
  else if (field == WhereField::Event) {
    for (const EventKindInfo& kind : eventKinds()) allowed.push_back(kind.name);
    allowed.push_back("sample");  // every time sample, cpu or wall: what it meant before kinds had names
  }
  if (allowed.empty()) return {};
  std::string list;
  for (const std::string& a : allowed) {
    if (a == value) return {};
    list += (list.empty() ? "" : ", ") + a;
  }
  return "unknown " + std::string(whereFieldName(field)) + " '" + value + "': expected one of " + list;
}

const char* whereFieldName(WhereField field) {
  for (const FieldName& f : kFields)
    if (f.field == field) return f.name.data();
  return "?";
}

}  // namespace stackscope::analysis

#include "analysis/resource_name.h"

#include <string_view>

namespace stackscope::analysis {

namespace {

struct TypeInfo {
  std::string_view name;
  ResourceType type;
  bool selectable;
  WhereField field;  // the condition a selection value becomes
};
constexpr TypeInfo kTypes[] = {
    {"methods", ResourceType::Methods, true, WhereField::Path},
    {"tree", ResourceType::Tree, false, WhereField::Path},
    {"graph", ResourceType::Graph, false, WhereField::Path},
    {"callers", ResourceType::Callers, false, WhereField::Path},
    {"threads", ResourceType::Threads, true, WhereField::Thread},
    {"states", ResourceType::States, true, WhereField::State},
    {"users", ResourceType::Users, true, WhereField::User},
    {"sessions", ResourceType::Sessions, true, WhereField::Session},
    {"requests", ResourceType::Requests, true, WhereField::Request},
    {"applications", ResourceType::Applications, true, WhereField::Application},
    {"components", ResourceType::Components, true, WhereField::Component},
    {"vthreads", ResourceType::VThreads, false, WhereField::Path},
    {"status", ResourceType::Status, false, WhereField::Path},
    {"gc", ResourceType::Gc, true, WhereField::Collector},
    {"exceptions", ResourceType::Exceptions, true, WhereField::Exception},
    {"classes", ResourceType::Classes, true, WhereField::Class},
    {"allocations", ResourceType::Allocations, false, WhereField::Path},
    {"ages", ResourceType::Ages, false, WhereField::Path},
    {"locks", ResourceType::Locks, true, WhereField::Lock},
    {"owners", ResourceType::Owners, false, WhereField::Path},
    {"histogram", ResourceType::Histogram, false, WhereField::Path},
    {"histogram-growth", ResourceType::HistogramGrowth, false, WhereField::Path},
};

const TypeInfo& info(ResourceType type) {
  for (const TypeInfo& t : kTypes)
    if (t.type == type) return t;
  return kTypes[0];
}

std::string typeList() {
  std::string list;
  for (const TypeInfo& t : kTypes) list += (list.empty() ? "" : ", ") + std::string(t.name);
  return list;
}

// Inside a method's parameter list, "(int, long[])", commas, brackets and spaces belong to the
// value: the parser reads up to the closing parenthesis (Parser::value).
// An array class's "[]" belongs to the value too: classes[byte[],java.lang.Object[][]].
bool needsQuotes(const std::string& value) {
  if (value.empty()) return true;
  int depth = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '[' && i + 1 < value.size() && value[i + 1] == ']') {
      ++i;
      continue;
    }
    if (c == '"' || c == '\\') return true;
    if (c == '(' || c == ')') {
      depth += c == '(' ? 1 : -1;
      if (depth < 0 || depth > 1) return true;
    } else if (depth == 0 && (c == ',' || c == '[' || c == ']' || c == '/' || c == ' ')) {
      return true;
    }
  }
  return depth != 0;
}

std::unique_ptr<WhereNode> condition(WhereField field, const std::string& value) {
  auto node = std::make_unique<WhereNode>();
  node->field = field;
  node->op = field == WhereField::Path ? WhereOp::Contains : WhereOp::Equal;
  node->value = value;
  return node;
}

std::unique_ptr<WhereNode> group(WhereNode::Kind kind, std::vector<std::unique_ptr<WhereNode>> parts) {
  if (parts.size() == 1) return std::move(parts[0]);
  auto node = std::make_unique<WhereNode>();
  node->kind = kind;
  node->children = std::move(parts);
  return node;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  ResourceName parse() {
    ResourceName name;
    if (text_.empty()) throw fail("a resource name is empty; expected e.g. methods or threads[main]/methods");
    while (true) {
      name.elements.push_back(element());
      if (pos_ == text_.size()) break;
      if (text_[pos_] != '/') throw fail("expected '/' or the end");
      ++pos_;
    }
    return name;
  }

 private:
  ResourceNameError fail(const std::string& message) const {
    return ResourceNameError("resource name '" + text_ + "': " + message + " at position " + std::to_string(pos_ + 1));
  }

  ResourceElement element() {
    const size_t start = pos_;
    while (pos_ < text_.size() && ((text_[pos_] >= 'a' && text_[pos_] <= 'z') || text_[pos_] == '-')) ++pos_;
    const std::string_view word(text_.data() + start, pos_ - start);
    const TypeInfo* type = nullptr;
    for (const TypeInfo& t : kTypes)
      if (t.name == word) type = &t;
    if (!type) {
      pos_ = start;
      throw fail("unknown element '" + std::string(word) + "' (expected one of " + typeList() + ")");
    }
    ResourceElement element{type->type, {}};
    if (pos_ < text_.size() && text_[pos_] == '[') {
      if (!type->selectable) throw fail("'" + std::string(type->name) + "' takes no selection");
      ++pos_;
      do {
        element.values.push_back(value());
        const std::string problem = whereValueProblem(type->field, element.values.back());
        if (!problem.empty()) throw fail(problem);
      } while (pos_ < text_.size() && text_[pos_] == ',' && ++pos_);
      if (pos_ >= text_.size() || text_[pos_] != ']') throw fail("expected ',' or ']'");
      ++pos_;
    }
    return element;
  }

  std::string value() {
    std::string out;
    if (pos_ < text_.size() && text_[pos_] == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
        out += text_[pos_++];
      }
      if (pos_ >= text_.size()) throw fail("unterminated quoted value");
      ++pos_;
      return out;
    }
    bool in_params = false;  // "work(int, long[])": ',' and ']' belong to the parameters
    int brackets = 0;        // "[stub] name", "[vm] monitor enter": a bracket pair inside the value
    while (pos_ < text_.size() && (in_params || brackets > 0 || (text_[pos_] != ',' && text_[pos_] != ']'))) {
      const char c = text_[pos_];
      if (c == '(' || c == ')') in_params = c == '(';
      if (text_.compare(pos_, 2, "[]") == 0) {  // an array class: "byte[]"
        out += text_[pos_++];
      } else if (!in_params && (c == '[' || c == ']')) {
        brackets += c == '[' ? 1 : -1;
      }
      out += text_[pos_++];
    }
    if (brackets > 0) throw fail("unclosed '[' in a value");
    if (out.empty()) throw fail("empty value");
    return out;
  }

  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

const char* resourceTypeName(ResourceType type) { return info(type).name.data(); }

ResourceName parseResourceName(const std::string& text) { return Parser(text).parse(); }

std::string ResourceName::toString() const {
  std::string out;
  for (const ResourceElement& e : elements) {
    if (!out.empty()) out += '/';
    out += resourceTypeName(e.type);
    if (e.values.empty()) continue;
    out += '[';
    for (size_t i = 0; i < e.values.size(); ++i) {
      if (i) out += ',';
      if (!needsQuotes(e.values[i])) {
        out += e.values[i];
        continue;
      }
      out += '"';
      for (char c : e.values[i]) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      out += '"';
    }
    out += ']';
  }
  return out;
}

std::unique_ptr<WhereNode> ResourceName::filter() const {
  std::vector<std::unique_ptr<WhereNode>> all;
  for (const ResourceElement& e : elements) {
    if (e.values.empty()) continue;
    std::vector<std::unique_ptr<WhereNode>> alternatives;
    for (const std::string& v : e.values) alternatives.push_back(condition(info(e.type).field, v));
    all.push_back(group(WhereNode::Kind::Or, std::move(alternatives)));
  }
  if (all.empty()) return nullptr;
  return group(WhereNode::Kind::And, std::move(all));
}

std::vector<std::string> ResourceName::selected(ResourceType type) const {
  for (const ResourceElement& e : elements)
    if (e.type == type && !e.values.empty()) return e.values;
  return {};
}

}  // namespace stackscope::analysis

// The logical filter language of `--where`: conditions on a sample's thread, frames, state
// and annotations, combined with and / or / not and parentheses.
//
//   expr      := or
//   or        := and ("or" and)*
//   and       := unary ("and" unary)*
//   unary     := "not" unary | "(" expr ")" | condition
//   condition := FIELD ("=" | "!=" | "~") VALUE
//
// VALUE is a bare word (letters, digits and . _ $ * ? - / : # @ +) or a quoted string with
// \" and \\ escapes; a bare word may end in a parameter list, "Main.work(int, String)"
// (method patterns, names.h). Values are globs (* and ?) unless said otherwise. Keywords are
// case-insensitive; field names are lower case.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace stackscope::analysis {

enum class WhereField {
  Thread,       // thread name (glob)
  Tid,          // thread id as the recording numbers it (exact)
  Class,        // the object's class on events about an object (allocations: glob on "byte[]",
                // "pkg.Class"), else the class of the top frame (glob on "pkg.Class")
  Method,       // top frame (glob on "pkg.Class.method")
  Package,      // package of the top frame's class (glob on "pkg.sub")
  Path,         // any frame on the stack (glob on "pkg.Class.method"); use with "~"
  State,        // thread state name: running, blocked, waiting, timed_waiting, sleeping, native
  Event,        // event type: sample
  User,         // annotation fields (glob); keep this order, it is format::AnnotationField's
  Session,
  Request,
  Application,
  Component,
  Exception,    // the class of an exception event's thrown exception (glob on "pkg.Class")
  Collector,    // a collection's collector and cause (globs; labels, event_kinds.h)
  Cause,
  Lock,         // the lock class of a lock or wait event (glob on "pkg.Class")
};

enum class WhereOp { Equal, NotEqual, Contains };

struct WhereNode {
  enum class Kind { And, Or, Not, Condition } kind = Kind::Condition;
  std::vector<std::unique_ptr<WhereNode>> children;  // And, Or: two or more; Not: one
  WhereField field = WhereField::Thread;
  WhereOp op = WhereOp::Equal;
  std::string value;
  size_t position = 0;  // of the condition in the expression, for messages
};

// A malformed expression: the message names what was expected, `position` (0-based) points
// at the offending character, and what() carries both with a caret under the expression.
class WhereError : public std::runtime_error {
 public:
  WhereError(const std::string& expression, size_t position, const std::string& message);
  size_t position() const { return position_; }

 private:
  size_t position_;
};

// Nesting of parentheses and 'not' beyond this is refused (WhereError): every stage that
// walks the tree recurses once per level.
inline constexpr size_t kMaxWhereDepth = 200;

std::unique_ptr<WhereNode> parseWhere(const std::string& expression);

const char* whereFieldName(WhereField field);

// Why `value` can never match `field` (a misspelt state, say), or "" when it can.
std::string whereValueProblem(WhereField field, const std::string& value);

}  // namespace stackscope::analysis

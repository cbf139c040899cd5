// How methods and threads are named for people, and how a name a person types selects them.
//
// A method's name is `package.Class.method` (class names are stored dotted, inner classes as
// `Outer$Inner`), with the parts that change from run to run taken out of generated classes:
//   pkg.Foo$$Lambda$20.0x0000000800c0b000  -> pkg.Foo$$Lambda      (JDK 17 lambdas)
//   pkg.Foo$$Lambda.0x00007f3a1c00a000     -> pkg.Foo$$Lambda      (JDK 21+; also "/0x…")
//   java.lang.invoke.LambdaForm$MH.0x…     -> java.lang.invoke.LambdaForm$MH
//   jdk.proxy1.$Proxy12                    -> jdk.proxy1.$Proxy
//   jdk.internal.reflect.GeneratedMethodAccessor7 -> …GeneratedMethodAccessor
// Counters and addresses depend on the order classes happened to be spun, so a run's names
// could not be compared with another run's, or typed back. Methods whose normalised name and
// JVM descriptor are equal are one *identity*: views count them as one row (two lambdas of
// Foo implementing Runnable are one `Foo$$Lambda.run`; their bodies, `Foo.lambda$main$0` and
// `Foo.lambda$main$1`, stay apart one frame below). Overloads differ by descriptor and are
// never merged; where a class has several of one name, the short Java signature tells them
// apart: `Main.work(int)` and `Main.work(String)`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/recording.h"

namespace stackscope::analysis {

// The raw name, as the recording wrote it (`pkg.Class.method`, nothing normalised).
std::string methodName(const Recording& recording, uint32_t method);
const std::string& methodSignature(const Recording& recording, uint32_t method);
std::string threadName(const Recording& recording, uint32_t thread);

// "pkg.Foo$$Lambda$20.0x0800" -> "pkg.Foo$$Lambda", and the other rules above.
std::string normaliseClassName(std::string_view raw);

// A JVM method descriptor as Java source writes the parameters.
struct JavaSignature {
  bool valid = false;                  // false: not a well-formed descriptor
  std::vector<std::string> params;     // simple names: "int", "String", "long[]", "Map$Entry"
  std::vector<std::string> qualified;  // the same with packages: "java.lang.String"
  std::string returns;                 // simple name of the return type, "void"
};
JavaSignature parseDescriptor(std::string_view descriptor);

struct MethodName {
  std::string name;     // normalised `pkg.Class.method`
  std::string raw;      // as recorded
  std::string params;   // "(int, String)"; the descriptor as it is when it does not parse
  std::string display;  // name, plus params where the class has several methods of that name
  uint32_t identity = 0;  // the lowest method id with the same name and descriptor
};

// Every method of a recording named once. Built from the map data only, so a method is named
// the same in every view and window of one recording, and what a report prints can be typed
// back into a resource name or --where.
class MethodNames {
 public:
  explicit MethodNames(const Recording& recording);
  const MethodName& operator[](uint32_t method) const { return names_[method < names_.size() ? method : 0]; }
  size_t size() const { return names_.size(); }
  // The raw names merged into an identity (usually one), in id order.
  std::vector<std::string> rawNames(uint32_t identity) const;
  // Whether `pattern` (see MethodPattern) selects the method.
  bool matches(uint32_t method, const class MethodPattern& pattern) const;

 private:
  const Recording& recording_;
  std::vector<MethodName> names_;  // indexed by method id; entry 0 is a placeholder
  std::unordered_map<uint32_t, std::vector<std::string>> merged_raw_;  // identities of several methods
};

// A method name a person typed: a glob (* and ?) on `pkg.Class.method`, matched against the
// normalised name and the raw one, optionally followed by a parameter list that selects
// overloads: `work(int)`, `work(int, String)`, `work(int,java.lang.String)`, or the JVM
// descriptor `work(I)D` / `work(I)`. Square brackets are literal (`work(long[])`).
class MethodPattern {
 public:
  explicit MethodPattern(std::string_view text);
  bool hasSignature() const { return has_signature_; }
  bool matchName(const std::string& name) const;
  bool matchSignature(const std::string& candidate) const;  // "(int,String)" and friends

 private:
  bool has_signature_ = false;
  std::string name_glob_;
  std::string signature_glob_;
};

// What a view counts as one row or node: a method identity, or with `lines` a method
// identity at one source line (the line of the frame's bci in the method's line table).
// Frame kinds come from the bci too: the format records no frame type, only bci >= 0 for
// a Java frame and a negative bci for a native method (see README, "Frame kinds").
class FrameKeys {
 public:
  enum Kind : uint8_t { kJava = 1, kNative = 2 };
  FrameKeys(const Recording& recording, const MethodNames& names, bool lines);
  uint32_t of(const format::Frame& frame) const;
  size_t size() const { return keys_.size(); }
  uint32_t method(uint32_t key) const { return keys_[key].method; }  // a method identity
  uint32_t line(uint32_t key) const { return keys_[key].line; }      // 0 = unknown or not asked
  uint8_t kinds(uint32_t key) const { return keys_[key].kinds; }     // Kind bits of its frames

 private:
  struct Key {
    uint32_t method = 0;
    uint32_t line = 0;
    uint8_t kinds = 0;
  };
  const Recording& recording_;
  const MethodNames& names_;
  bool lines_;
  std::vector<Key> keys_;
  std::unordered_map<uint64_t, uint32_t> by_method_line_;  // with lines: identity << 32 | line
};

// The note for a method pattern that matches no method: "'Main.work(I)D' matches no method
// of the recording", and when the pattern matches as the end of a name (its package left
// out), up to three such names: "(did you mean app.Main.work(int)?)".
std::string unmatchedPatternNote(const MethodNames& names, const std::string& pattern);

// The source line of `bci` in the method's line table, 0 when unknown.
uint32_t lineOf(const MethodInfo& method, int32_t bci);
// "java", "native", "java+native" or "" for FrameKeys::Kind bits.
const char* frameKindName(uint8_t kinds);

}  // namespace stackscope::analysis

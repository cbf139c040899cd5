#include "analysis/names.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace stackscope::analysis {

namespace {

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool allHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// Cuts `prefix` + digits off the end of `name`, keeping the prefix: "$Proxy12" -> "$Proxy".
bool cutCounter(std::string& name, std::string_view prefix) {
  const size_t at = name.rfind(prefix);
  if (at == std::string::npos || !allDigits(std::string_view(name).substr(at + prefix.size()))) return false;
  name.resize(at + prefix.size());
  return true;
}

// One field type of a descriptor, from `pos`; advances `pos`. Empty when malformed.
std::string fieldType(std::string_view d, size_t& pos, bool qualified) {
  size_t dims = 0;
  while (pos < d.size() && d[pos] == '[') ++dims, ++pos;
  if (pos >= d.size()) return {};
  std::string type;
  switch (d[pos++]) {
    case 'B': type = "byte"; break;
    case 'C': type = "char"; break;
    case 'D': type = "double"; break;
    case 'F': type = "float"; break;
    case 'I': type = "int"; break;
    case 'J': type = "long"; break;
    case 'S': type = "short"; break;
    case 'Z': type = "boolean"; break;
    case 'V': type = dims == 0 ? "void" : ""; break;
    case 'L': {
      const size_t end = d.find(';', pos);
      if (end == std::string_view::npos || end == pos) return {};
      std::string_view cls = d.substr(pos, end - pos);
      pos = end + 1;
      if (!qualified) cls = cls.substr(cls.find_last_of('/') + 1);  // npos + 1 == 0: no package
      type.assign(cls);
      std::replace(type.begin(), type.end(), '/', '.');
      break;
    }
    default: return {};
  }
  if (type.empty()) return {};
  for (size_t i = 0; i < dims; ++i) type += "[]";
  return type;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

std::string withoutSpaces(std::string_view text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// fnmatch reads "[...]" as a character class; here brackets are array types, so literal.
std::string literalBrackets(std::string_view glob) {
  std::string out;
  for (char c : glob) {
    if (c == '[' || c == ']') out += '\\';
    out += c;
  }
  return out;
}

bool glob(const std::string& pattern, const std::string& value) { return ::fnmatch(pattern.c_str(), value.c_str(), 0) == 0; }

}  // namespace

std::string methodName(const Recording& recording, uint32_t method) {
  if (method >= recording.methods.size() || !recording.methods[method].defined)
    return "<unknown method #" + std::to_string(method) + ">";
  const MethodInfo& info = recording.methods[method];
  const std::string& cls = recording.string(info.class_name);
  const std::string& name = recording.string(info.method_name);
  return cls.empty() ? name : cls + "." + name;
}

const std::string& methodSignature(const Recording& recording, uint32_t method) {
  static const std::string kUnknown;
  if (method >= recording.methods.size()) return kUnknown;
  return recording.string(recording.methods[method].signature);
}

std::string threadName(const Recording& recording, uint32_t thread) {
  if (thread < recording.threads.size() && recording.threads[thread].defined && !recording.threads[thread].name.empty())
    return recording.threads[thread].name;
  // Virtual threads are mostly unnamed: their Java id tells them apart.
  if (thread < recording.threads.size() && recording.threads[thread].is_virtual)
    return "<virtual #" + std::to_string(recording.threads[thread].java_id) + ">";
  return "<thread #" + std::to_string(thread) + ">";
}

std::string normaliseClassName(std::string_view raw) {
  std::string name(raw);
  // A hidden class: the name its definer gave, then '.' (JVMTI) or '/' (Class.getName) and
  // the address of its class data.
  const size_t cut = name.find_last_of("./");
  if (cut != std::string::npos && name.compare(cut + 1, 2, "0x") == 0 && allHex(std::string_view(name).substr(cut + 3)))
    name.resize(cut);
  // Counters in the order the JVM happened to spin the classes.
  if (cutCounter(name, "$$Lambda$")) name.pop_back();  // JDK 17: Foo$$Lambda$20 -> Foo$$Lambda
  // java.lang.reflect.Proxy's classes are named "$ProxyN" in their package; a nested class
  // Outer$Proxy1 is somebody's own name.
  if (const size_t proxy = name.rfind("$Proxy"); proxy != std::string::npos && (proxy == 0 || name[proxy - 1] == '.'))
    cutCounter(name, "$Proxy");
  for (std::string_view accessor : {"GeneratedMethodAccessor", "GeneratedConstructorAccessor",
                                    "GeneratedSerializationConstructorAccessor"})
    cutCounter(name, accessor);
  return name;
}

JavaSignature parseDescriptor(std::string_view d) {
  JavaSignature sig;
  if (d.empty() || d[0] != '(') return sig;
  size_t pos = 1;
  while (pos < d.size() && d[pos] != ')') {
    size_t at = pos;
    std::string simple = fieldType(d, pos, false), qualified = fieldType(d, at, true);
    if (simple.empty() || simple == "void") return sig;
    sig.params.push_back(std::move(simple));
    sig.qualified.push_back(std::move(qualified));
  }
  if (pos >= d.size()) return sig;
  ++pos;
  sig.returns = fieldType(d, pos, false);
  sig.valid = !sig.returns.empty() && pos == d.size();
  return sig;
}

MethodNames::MethodNames(const Recording& recording)
    : recording_(recording), names_(std::max<size_t>(recording.methods.size(), 1)) {
  std::map<std::pair<std::string, std::string>, uint32_t> identities;  // (name, descriptor)
  for (uint32_t id = 0; id < names_.size(); ++id) {
    MethodName& n = names_[id];
    n.raw = methodName(recording, id);
    n.identity = id;
    if (id >= recording.methods.size() || !recording.methods[id].defined) {
      n.name = n.display = n.raw;
      continue;
    }
    const MethodInfo& info = recording.methods[id];
    const std::string& cls = recording.string(info.class_name);
    const std::string& method = recording.string(info.method_name);
    n.name = cls.empty() ? method : normaliseClassName(cls) + "." + method;
    const std::string& descriptor = recording.string(info.signature);
    const JavaSignature sig = parseDescriptor(descriptor);
    n.params = sig.valid ? "(" + joined(sig.params, ", ") + ")" : descriptor;
    n.identity = identities.try_emplace({n.name, descriptor}, id).first->second;
  }
  // Identities per name; a name with several gets its parameters shown, and where even
  // those collide (a bridge method differing only by return type), the descriptor.
  std::map<std::string, std::vector<uint32_t>> by_name;
  for (uint32_t id = 0; id < names_.size(); ++id)
    if (names_[id].identity == id && id < recording.methods.size() && recording.methods[id].defined) by_name[names_[id].name].push_back(id);
  for (auto& [name, ids] : by_name) {
    std::map<std::string, int> params_seen;
    for (uint32_t id : ids) ++params_seen[names_[id].params];
    for (uint32_t id : ids) {
      MethodName& n = names_[id];
      if (ids.size() == 1) n.display = n.name;
      else if (params_seen[n.params] == 1) n.display = n.name + n.params;
      else n.display = n.name + methodSignature(recording, id);
    }
  }
  for (MethodName& n : names_) {
    if (n.display.empty()) n.display = names_[n.identity].display;
    if (&n == &names_[n.identity]) continue;
    std::vector<std::string>& merged = merged_raw_[n.identity];
    if (merged.empty()) merged.push_back(names_[n.identity].raw);
    if (std::find(merged.begin(), merged.end(), n.raw) == merged.end()) merged.push_back(n.raw);
  }
}

std::vector<std::string> MethodNames::rawNames(uint32_t identity) const {
  const auto it = merged_raw_.find(identity);
  if (it != merged_raw_.end()) return it->second;
  return {(*this)[identity].raw};
}

bool MethodNames::matches(uint32_t method, const MethodPattern& pattern) const {
  if (method >= names_.size()) return false;
  const MethodName& n = names_[method];
  if (!pattern.matchName(n.name) && !pattern.matchName(n.raw)) return false;
  if (!pattern.hasSignature()) return true;
  const std::string& descriptor = methodSignature(recording_, method);
  const JavaSignature sig = parseDescriptor(descriptor);
  if (sig.valid && (pattern.matchSignature("(" + joined(sig.params, ",") + ")") ||
                    pattern.matchSignature("(" + joined(sig.qualified, ",") + ")")))
    return true;
  return pattern.matchSignature(descriptor) || pattern.matchSignature(descriptor.substr(0, descriptor.find(')') + 1));
}

MethodPattern::MethodPattern(std::string_view text) {
  const size_t open = text.find('(');
  has_signature_ = open != std::string_view::npos;
  name_glob_ = literalBrackets(text.substr(0, open));
  if (has_signature_) signature_glob_ = literalBrackets(withoutSpaces(text.substr(open)));
}

bool MethodPattern::matchName(const std::string& name) const { return glob(name_glob_, name); }
bool MethodPattern::matchSignature(const std::string& candidate) const { return glob(signature_glob_, candidate); }

std::string unmatchedPatternNote(const MethodNames& names, const std::string& pattern) {
  constexpr size_t kMaxSuggestions = 3;
  const MethodPattern ending("*." + pattern);
  std::vector<std::string> similar;
  for (uint32_t m = 1; m < names.size() && similar.size() <= kMaxSuggestions; ++m) {
    const MethodName& n = names[m];
    if (n.identity == m && names.matches(m, ending) && std::find(similar.begin(), similar.end(), n.display) == similar.end())
      similar.push_back(n.display);
  }
  std::string note = "'" + pattern + "' matches no method of the recording";
  if (similar.empty()) return note;
  const bool more = similar.size() > kMaxSuggestions;
  if (more) similar.pop_back();
  return note + " (did you mean " + joined(similar, ", ") + (more ? ", …" : "") + "?)";
}

FrameKeys::FrameKeys(const Recording& recording, const MethodNames& names, bool lines)
    : recording_(recording), names_(names), lines_(lines) {
  if (lines_) {
    keys_.push_back({});  // key 0: a placeholder, as method id 0 is
  } else {
    keys_.resize(names.size());
    for (uint32_t id = 0; id < names.size(); ++id) keys_[id].method = names[id].identity;
  }
  // Every frame of the recording once: line keys get dense ids, and every key learns the
  // kinds of its frames (a negative bci is a native method; a frame without a class is a
  // native function of mixed mode, unless its name is bracketed: the [truncated] and
  // [stub] pseudo-frames are neither).
  for (uint32_t stack = 0; stack < recording.stacks.size(); ++stack) {
    for (const format::Frame& frame : recording.stack(stack)) {
      uint32_t key = names[frame.method].identity;
      if (lines_) {
        const uint32_t line = frame.method < recording.methods.size() ? lineOf(recording.methods[frame.method], frame.bci) : 0;
        const uint64_t composite = (uint64_t{key} << 32) | line;
        auto [it, inserted] = by_method_line_.try_emplace(composite, static_cast<uint32_t>(keys_.size()));
        if (inserted) keys_.push_back({key, line, 0});
        key = it->second;
      }
      const MethodInfo* info = frame.method < recording.methods.size() ? &recording.methods[frame.method] : nullptr;
      if (!info || !info->defined) continue;
      if (!recording.string(info->class_name).empty()) {
        keys_[key].kinds |= frame.bci >= 0 ? kJava : kNative;
      } else if (!recording.string(info->method_name).starts_with('[')) {
        keys_[key].kinds |= kNative;
      }
    }
  }
}

uint32_t FrameKeys::of(const format::Frame& frame) const {
  const uint32_t identity = names_[frame.method].identity;
  if (!lines_) return identity;
  const uint32_t line = frame.method < recording_.methods.size() ? lineOf(recording_.methods[frame.method], frame.bci) : 0;
  const auto it = by_method_line_.find((uint64_t{identity} << 32) | line);
  return it == by_method_line_.end() ? 0 : it->second;
}

uint32_t lineOf(const MethodInfo& method, int32_t bci) {
  if (bci < 0 || method.lines.empty()) return 0;
  const auto after = std::upper_bound(method.lines.begin(), method.lines.end(), static_cast<uint32_t>(bci),
                                      [](uint32_t b, const format::LineEntry& e) { return b < e.bci; });
  return after == method.lines.begin() ? 0 : std::prev(after)->line;
}

const char* frameKindName(uint8_t kinds) {
  switch (kinds) {
    case FrameKeys::kJava: return "java";
    case FrameKeys::kNative: return "native";
    case FrameKeys::kJava | FrameKeys::kNative: return "java+native";
    default: return "";
  }
}

}  // namespace stackscope::analysis

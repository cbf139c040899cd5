#include "analysis/where_filter.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/names.h"
#include "common/class_glob.h"

namespace stackscope::analysis {

namespace {

bool glob(const std::string& pattern, const std::string& value) { return ::fnmatch(pattern.c_str(), value.c_str(), 0) == 0; }

std::string classOf(const std::string& method_name) {
  const size_t dot = method_name.rfind('.');
  return dot == std::string::npos ? std::string() : method_name.substr(0, dot);
}

std::string packageOf(const std::string& class_name) {
  const size_t dot = class_name.rfind('.');
  return dot == std::string::npos ? std::string() : class_name.substr(0, dot);
}

// One compiled node. Leaves answer from a per-id cache (-1 unknown, 0 false, 1 true).
class Node {
 public:
  virtual ~Node() = default;
  virtual bool eval(const Event& event) = 0;
};

class Combined : public Node {
 public:
  Combined(WhereNode::Kind kind, std::vector<std::unique_ptr<Node>> children) : kind_(kind), children_(std::move(children)) {}
  bool eval(const Event& event) override {
    if (kind_ == WhereNode::Kind::Not) return !children_[0]->eval(event);
    const bool is_and = kind_ == WhereNode::Kind::And;
    for (auto& child : children_)
      if (child->eval(event) != is_and) return !is_and;
    return is_and;
  }

 private:
  WhereNode::Kind kind_;
  std::vector<std::unique_ptr<Node>> children_;
};

// The label a --where field reads (collector, cause, lock).
Label labelOf(WhereField field) {
  if (field == WhereField::Collector) return Label::Collector;
  if (field == WhereField::Cause) return Label::Cause;
  return Label::ObjectClass;
}

class Condition : public Node {
 public:
  Condition(const WhereNode& node, const Recording& recording, const MethodNames& names)
      : field_(node.field), negate_(node.op == WhereOp::NotEqual), value_(node.value), pattern_(node.value),
        recording_(recording), names_(names) {}

  bool eval(const Event& event) override { return decide(event) != negate_; }

  // Method patterns may carry a signature (names.h), and a class is matched by its
  // normalised name or its raw one: decided once per method.
  bool matchMethod(uint32_t method) {
    if (method >= method_cache_.size()) method_cache_.resize(method + 1, -1);
    int8_t& known = method_cache_[method];
    if (known >= 0) return known == 1;
    bool match = false;
    if (field_ == WhereField::Method || field_ == WhereField::Path) {
      match = names_.matches(method, pattern_);
    } else {
      for (const std::string* name : {&names_[method].name, &names_[method].raw}) {
        const std::string cls = classOf(*name);
        match = match || glob(value_, field_ == WhereField::Class ? cls : packageOf(cls));
      }
    }
    known = match ? 1 : 0;
    return match;
  }

 private:
  bool decide(const Event& event) {
    switch (field_) {
      case WhereField::Thread:
      case WhereField::Tid: return cached(event.thread, [&] { return matchThread(event.thread); });
      case WhereField::Class:
        // An event about an object (an allocation) answers with the object's class, an
        // exception with the class it threw (its stack is its own: the thrown class on top).
        if (const uint32_t object_class = recording_.label(event, Label::ObjectClass)) {
          return cachedIn(class_cache_, object_class,
                          [&] { return matchClassGlob(value_, recording_.string(object_class)); });
        }
        if (event.kind == EventKind::Exception)
          return cached(event.stack, [&] { return matchClassGlob(value_, recording_.thrownClass(event.stack)); });
        [[fallthrough]];
      case WhereField::Method:
      case WhereField::Package:
      case WhereField::Path: return cached(event.stack, [&] { return matchStack(event.stack); });
      case WhereField::State: return value_ == format::threadStateName(event.state);
      case WhereField::Event: return matchKind(event.kind);
      case WhereField::User:
      case WhereField::Session:
      case WhereField::Request:
      case WhereField::Application:
      case WhereField::Component: return cached(event.annotation, [&] { return matchAnnotation(event.annotation); });
      // The kind first: a time sample's stack may also end in a frame with no class (native).
      case WhereField::Exception:
        return event.kind == EventKind::Exception &&
               cached(event.stack, [&] { return glob(value_, std::string(recording_.thrownClass(event.stack))); });
      // An unset label matches no value, as an unset annotation field.
      case WhereField::Collector:
      case WhereField::Cause:
      case WhereField::Lock: {
        // A lock class is a lock or wait event's: the label may name other objects' classes.
        if (field_ == WhereField::Lock && event.kind != EventKind::Lock && event.kind != EventKind::Wait) return false;
        const uint32_t label = recording_.label(event, labelOf(field_));
        return label != 0 && cached(label, [&] { return glob(value_, recording_.string(label)); });
      }
    }
    return false;
  }

  template <typename Compute>
  bool cached(uint32_t id, Compute compute) { return cachedIn(cache_, id, compute); }
  template <typename Compute>
  static bool cachedIn(std::vector<int8_t>& cache, uint32_t id, Compute compute) {
    if (id >= cache.size()) cache.resize(id + 1, -1);
    if (cache[id] < 0) cache[id] = compute() ? 1 : 0;
    return cache[id] == 1;
  }

  // The kind's name; "sample", as before kinds had names, still matches every time sample.
  bool matchKind(EventKind kind) const {
    const bool time_sample = kind == EventKind::Cpu || kind == EventKind::Wall;
    return glob(value_, eventKindName(kind)) || (time_sample && glob(value_, "sample"));
  }

  bool matchThread(uint32_t thread) const {
    if (field_ == WhereField::Tid) return value_ == std::to_string(thread);
    if (glob(value_, threadName(recording_, thread))) return true;
    // A renamed thread answers to every name it had: 'thread=main' still finds the launcher's
    // thread once it is DestroyJavaVM.
    if (thread >= recording_.threads.size()) return false;
    for (const std::string& name : recording_.threads[thread].names)
      if (glob(value_, name)) return true;
    return false;
  }

  // An unset field matches no value: "user=*" keeps the samples of annotated users only.
  bool matchAnnotation(uint32_t annotation) const {
    if (annotation == 0 || annotation >= recording_.annotations.size()) return false;
    const uint32_t value = recording_.annotations[annotation][annotationIndex()];
    return value != 0 && glob(value_, recording_.string(value));
  }

  size_t annotationIndex() const {
    return static_cast<size_t>(field_) - static_cast<size_t>(WhereField::User);  // User..Component in format order
  }

  bool matchStack(uint32_t stack) {
    const auto frames = recording_.stack(stack);
    if (field_ == WhereField::Path) {
      for (const format::Frame& frame : frames)
        if (matchMethod(frame.method)) return true;
      return false;
    }
    return !frames.empty() && matchMethod(frames.front().method);
  }


  WhereField field_;
  bool negate_;
  std::string value_;
  MethodPattern pattern_;
  const Recording& recording_;
  const MethodNames& names_;
  std::vector<int8_t> cache_;
  std::vector<int8_t> class_cache_;   // per object class (string id)
  std::vector<int8_t> method_cache_;  // per method id: -1 unknown, 0 false, 1 true
};

std::unique_ptr<Node> compile(const WhereNode& node, const Recording& recording, const MethodNames& names) {
  if (node.kind == WhereNode::Kind::Condition) return std::make_unique<Condition>(node, recording, names);
  std::vector<std::unique_ptr<Node>> children;
  for (const auto& child : node.children) children.push_back(compile(*child, recording, names));
  return std::make_unique<Combined>(node.kind, std::move(children));
}

// What a condition depends on. A subtree that depends on one dimension has one answer per
// id of it (stack, thread, state or annotation), so it is decided once per id.
enum class Dimension { None, Stack, Thread, State, Annotation, Kind, Mixed };

// `object_classes`: some events have an object class, which a class condition reads first.
Dimension dimensionOf(const WhereNode& node, bool object_classes) {
  if (node.kind == WhereNode::Kind::Condition) {
    switch (node.field) {
      case WhereField::Thread:
      case WhereField::Tid: return Dimension::Thread;
      case WhereField::Class: return object_classes ? Dimension::Mixed : Dimension::Stack;
      case WhereField::Method:
      case WhereField::Package:
      case WhereField::Path: return Dimension::Stack;
      case WhereField::State: return Dimension::State;
      case WhereField::Event: return Dimension::Kind;
      case WhereField::Exception:  // stack and kind
      case WhereField::Collector:  // the event's labels
      case WhereField::Cause:
      case WhereField::Lock: return Dimension::Mixed;
      default: return Dimension::Annotation;
    }
  }
  Dimension dim = Dimension::None;
  for (const auto& child : node.children) {
    const Dimension d = dimensionOf(*child, object_classes);
    if (d == Dimension::None || d == dim) continue;
    dim = dim == Dimension::None ? d : Dimension::Mixed;
  }
  return dim;
}

uint32_t idOf(const Event& s, Dimension dim) {
  switch (dim) {
    case Dimension::Stack: return s.stack;
    case Dimension::Thread: return s.thread;
    case Dimension::State: return static_cast<uint32_t>(s.state);
    case Dimension::Annotation: return s.annotation;
    case Dimension::Kind: return static_cast<uint32_t>(s.kind);
    default: return 0;
  }
}

// A conjunction whose terms are grouped by dimension: each group is decided once per id and
// kept in a table sized for every id the recording has, so a sample costs one load per
// group; terms that mix dimensions are evaluated as they are.
class Conjunction : public Node {
 public:
  void add(Dimension dim, std::unique_ptr<Node> inner, size_t ids) { groups_.push_back({dim, std::move(inner), std::vector<int8_t>(ids, -1)}); }
  void addMixed(std::unique_ptr<Node> inner) { mixed_.push_back(std::move(inner)); }

  bool eval(const Event& event) override {
    for (Group& g : groups_) {
      const uint32_t id = idOf(event, g.dim);
      if (id >= g.cache.size()) {  // a model built without the loader's guarantees
        if (!g.inner->eval(event)) return false;
        continue;
      }
      int8_t& known = g.cache[id];
      if (known < 0) known = g.inner->eval(event) ? 1 : 0;
      if (!known) return false;
    }
    for (auto& m : mixed_)
      if (!m->eval(event)) return false;
    return true;
  }

 private:
  struct Group {
    Dimension dim;
    std::unique_ptr<Node> inner;
    std::vector<int8_t> cache;  // -1 unknown, 0 false, 1 true; indexed by the dimension's id
  };
  std::vector<Group> groups_;
  std::vector<std::unique_ptr<Node>> mixed_;
};

// Ids of a dimension run below this (the loader's invariants in recording.h).
size_t idCount(Dimension dim, const Recording& r) {
  switch (dim) {
    case Dimension::Stack: return r.stacks.size();
    case Dimension::Thread: return r.threads.size();
    case Dimension::State: return format::kThreadStateCount;
    case Dimension::Annotation: return r.annotations.size();
    case Dimension::Kind: return kEventKindCount;
    default: return 1;
  }
}

void flattenAnd(const WhereNode& node, std::vector<const WhereNode*>& out) {
  if (node.kind != WhereNode::Kind::And) {
    out.push_back(&node);
    return;
  }
  for (const auto& child : node.children) flattenAnd(*child, out);
}

}  // namespace

// The top-level conjunction is split by dimension: a resource name of any depth becomes at
// most four table lookups per event, which is what keeps navigation one cheap pass.
EventPredicate compileWhere(const WhereNode& expression, const Recording& recording) {
  auto names = std::make_shared<MethodNames>(recording);
  std::vector<const WhereNode*> terms;
  flattenAnd(expression, terms);
  std::map<Dimension, std::vector<std::unique_ptr<Node>>> by_dimension;
  const bool object_classes = !recording.labels[static_cast<size_t>(Label::ObjectClass)].empty();
  for (const WhereNode* term : terms)
    by_dimension[dimensionOf(*term, object_classes)].push_back(compile(*term, recording, *names));
  auto root = std::make_shared<Conjunction>();
  for (auto& [dim, nodes] : by_dimension) {
    auto inner = nodes.size() == 1 ? std::move(nodes[0]) : std::make_unique<Combined>(WhereNode::Kind::And, std::move(nodes));
    if (dim == Dimension::Mixed) root->addMixed(std::move(inner));
    else root->add(dim, std::move(inner), idCount(dim, recording));
  }
  return [root, names](const Event& event) { return root->eval(event); };
}

std::vector<std::string> unmatchedMethodPatterns(const WhereNode& expression, const Recording& recording) {
  std::vector<const WhereNode*> conditions, pending{&expression};
  while (!pending.empty()) {
    const WhereNode* node = pending.back();
    pending.pop_back();
    for (const auto& child : node->children) pending.push_back(child.get());
    const bool names_methods = node->field == WhereField::Method || node->field == WhereField::Path ||
                               node->field == WhereField::Class || node->field == WhereField::Package;
    if (node->kind == WhereNode::Kind::Condition && names_methods) conditions.push_back(node);
  }
  std::vector<std::string> unmatched;
  const MethodNames names(recording);
  // A class pattern may name the objects of the events instead (class=byte[]).
  std::vector<bool> object_class(recording.strings.size(), false);
  for (uint32_t id : recording.labels[static_cast<size_t>(Label::ObjectClass)])
    if (id < object_class.size()) object_class[id] = true;
  const auto namesObjectClass = [&](const std::string& pattern) {
    for (uint32_t id = 1; id < object_class.size(); ++id)
      if (object_class[id] && matchClassGlob(pattern, recording.strings[id])) return true;
    return false;
  };
  // ... or the classes exceptions threw (the pseudo-frame on top of their stacks).
  const auto namesThrownClass = [&](const std::string& pattern) {
    for (uint32_t stack = 1; stack < recording.stacks.size(); ++stack) {
      const std::string_view thrown = recording.thrownClass(stack);
      if (!thrown.empty() && matchClassGlob(pattern, thrown)) return true;
    }
    return false;
  };
  for (auto it = conditions.rbegin(); it != conditions.rend(); ++it) {
    if ((*it)->field == WhereField::Class && (namesObjectClass((*it)->value) || namesThrownClass((*it)->value))) continue;
    // A condition compiled alone answers for one frame: the top frame of a stack made of it.
    Condition condition(**it, recording, names);
    bool any = false;
    for (uint32_t m = 1; m < recording.methods.size() && !any; ++m) any = recording.methods[m].defined && condition.matchMethod(m);
    if (!any && std::find(unmatched.begin(), unmatched.end(), (*it)->value) == unmatched.end())
      unmatched.push_back((*it)->value);
  }
  return unmatched;
}

}  // namespace stackscope::analysis

#include "agent/method_resolver.h"

#include <algorithm>
#include <string>

#include "agent/java_names.h"
#include "agent/jvmti_buffer.h"

namespace stackscope::agent {

namespace {

constexpr const char* kUnknown = "<unknown>";

}  // namespace

uint32_t MethodResolver::idFor(JNIEnv* jni, const void* method) {
  auto [it, inserted] = ids_.try_emplace(method, next_id_);
  if (inserted) {
    ++next_id_;
    // Written before any stack that uses it: the map chunk is flushed before events.
    writer_.writeMethod(describe(jni, static_cast<jmethodID>(const_cast<void*>(method)), it->second));
  }
  return it->second;
}

uint32_t MethodResolver::truncatedId() {
  if (truncated_id_ == 0) {
    truncated_id_ = next_id_++;
    writer_.writeMethod({truncated_id_, writer_.internString(""), writer_.internString("[truncated]"),
                         writer_.internString(""), 0, {}});
  }
  return truncated_id_;
}

uint32_t MethodResolver::stubId(const char* name) {
  auto [it, inserted] = stub_ids_.try_emplace(name, next_id_);
  if (inserted) {
    ++next_id_;
    writer_.writeMethod({it->second, writer_.internString(""), writer_.internString(std::string("[stub] ") + name),
                         writer_.internString(""), 0, {}});
  }
  return it->second;
}

uint32_t MethodResolver::namedId(const std::string& name) {
  auto [it, inserted] = named_ids_.try_emplace(name, next_id_);
  if (inserted) {
    ++next_id_;
    writer_.writeMethod({it->second, writer_.internString(""), writer_.internString(name), writer_.internString(""), 0, {}});
  }
  return it->second;
}

uint32_t MethodResolver::nativeId(uintptr_t pc) {
  if (auto known = native_ids_.find(pc); known != native_ids_.end()) return known->second;
  const NativeFrameAddresses::Location location = native_addresses_.locate(pc);
  // In no module (yet): named by its address alone, and asked about again next time.
  if (location.module.empty()) {
    ++placeholders_given_;
    return namedId(location.placeholder);
  }
  const uint32_t id = next_id_++;
  // No name: the reader names it from its module and address (docs/format.md, Method). A
  // name string for each return address was a sixth of javac's file in mixed mode.
  format::MethodRecord record{id, writer_.internString(""), 0, writer_.internString(""),
                              writer_.internString(location.module_name), {}};
  record.native_module = writer_.internString(location.module);
  record.native_build_id = location.build_id.empty() ? 0 : writer_.internString(location.build_id);
  record.native_address = location.address;
  writer_.writeMethod(record);
  native_ids_.emplace(pc, id);
  return id;
}

void MethodResolver::restart() {
  std::vector<Origin> previous(next_id_);
  for (const auto& [method, id] : ids_) previous[id] = {Origin::Kind::Java, method, 0, {}};
  if (truncated_id_ != 0) previous[truncated_id_].kind = Origin::Kind::Truncated;
  for (const auto& [name, id] : stub_ids_) previous[id] = {Origin::Kind::Stub, nullptr, 0, name};
  for (const auto& [name, id] : named_ids_) previous[id] = {Origin::Kind::Named, nullptr, 0, name};
  for (const auto& [pc, id] : native_ids_) previous[id] = {Origin::Kind::Native, nullptr, pc, {}};
  previous_.swap(previous);
  std::unordered_map<const void*, uint32_t>().swap(ids_);
  std::unordered_map<std::string, uint32_t>().swap(stub_ids_);
  std::unordered_map<std::string, uint32_t>().swap(named_ids_);
  std::unordered_map<uintptr_t, uint32_t>().swap(native_ids_);
  truncated_id_ = 0;
  next_id_ = 1;
  class_sources_.forget();
}

uint32_t MethodResolver::renamed(JNIEnv* jni, uint32_t previous_id) {
  if (previous_id >= previous_.size()) return namedId(kUnknown);
  const Origin& origin = previous_[previous_id];
  switch (origin.kind) {
    case Origin::Kind::Java: return idFor(jni, origin.method);
    case Origin::Kind::Truncated: return truncatedId();
    case Origin::Kind::Stub: return stubId(origin.name.c_str());
    case Origin::Kind::Named: return namedId(origin.name);
    case Origin::Kind::Native: return nativeId(origin.pc);
    case Origin::Kind::None: break;
  }
  return namedId(kUnknown);
}

format::MethodRecord MethodResolver::describe(JNIEnv* jni, jmethodID method, uint32_t id) {
  format::MethodRecord record;
  record.id = id;
  JvmtiBuffer<char> name(jvmti_), signature(jvmti_);
  if (!method || jvmti_->GetMethodName(method, &name.ptr, &signature.ptr, nullptr) != JVMTI_ERROR_NONE) {
    record.class_name = writer_.internString(kUnknown);
    record.method_name = writer_.internString(kUnknown);
    record.signature = writer_.internString("");
    return record;
  }
  record.method_name = writer_.internString(name.ptr ? name.ptr : kUnknown);
  record.signature = writer_.internString(signature.ptr ? signature.ptr : "");

  jclass klass = nullptr;
  if (jvmti_->GetMethodDeclaringClass(method, &klass) == JVMTI_ERROR_NONE && klass) {
    JvmtiBuffer<char> class_signature(jvmti_), source(jvmti_);
    if (jvmti_->GetClassSignature(klass, &class_signature.ptr, nullptr) == JVMTI_ERROR_NONE && class_signature.ptr) {
      const std::string class_name = javaNameFromSignature(class_signature.ptr);
      record.class_name = writer_.internString(class_name);
      const std::string& library = class_sources_.sourceOf(jni, klass, class_name);
      if (!library.empty()) record.code_source = writer_.internString(library);
    }
    if (jvmti_->GetSourceFileName(klass, &source.ptr) == JVMTI_ERROR_NONE && source.ptr) {
      record.source_file = writer_.internString(source.ptr);
    }
    jni->DeleteLocalRef(klass);
  }
  if (record.class_name == 0) record.class_name = writer_.internString(kUnknown);

  // Native and abstract methods have no line table: that is not an error worth reporting.
  jint count = 0;
  JvmtiBuffer<jvmtiLineNumberEntry> table(jvmti_);
  if (jvmti_->GetLineNumberTable(method, &count, &table.ptr) == JVMTI_ERROR_NONE && table.ptr) {
    record.lines.reserve(static_cast<size_t>(count));
    for (jint i = 0; i < count; ++i) {
      record.lines.push_back({static_cast<uint32_t>(table.ptr[i].start_location),
                              static_cast<uint32_t>(table.ptr[i].line_number)});
    }
    std::sort(record.lines.begin(), record.lines.end(),
              [](const format::LineEntry& a, const format::LineEntry& b) { return a.bci < b.bci; });
  }
  return record;
}

}  // namespace stackscope::agent

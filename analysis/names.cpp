#include "analysis/names.h"

namespace stackscope::analysis {

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

std::vector<std::string> methodNames(const Recording& recording) {
  std::vector<std::string> names;
  names.reserve(recording.methods.size());
  for (uint32_t id = 0; id < recording.methods.size(); ++id) names.push_back(methodName(recording, id));
  return names;
}

std::string threadName(const Recording& recording, uint32_t thread) {
  if (thread < recording.threads.size() && recording.threads[thread].defined && !recording.threads[thread].name.empty())
    return recording.threads[thread].name;
  return "<thread #" + std::to_string(thread) + ">";
}

}  // namespace stackscope::analysis

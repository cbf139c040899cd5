// Shared by the annotation and marker tests: their workloads (tests/java Annotated*,
// Phases*) call the Java API, so the API jar goes on the class path beside the workloads.
#pragma once

#include <string>
#include <vector>

#include "harness.h"

namespace it {

// java … -cp WORKLOADS:stackscope.jar JVM_OPTIONS io.stackscope.workloads.MAIN ARGS
inline std::vector<std::string> apiJavaCommand(const std::string& main_class, const std::vector<std::string>& args = {},
                                               const std::vector<std::string>& jvm_options = {}) {
  std::vector<std::string> argv{java(), "-Xmx256m", "-XX:+UseSerialGC", "-cp",
                                std::string(WORKLOADS_JAR) + ":" + STACKSCOPE_JAR};
  argv.insert(argv.end(), jvm_options.begin(), jvm_options.end());
  argv.push_back(kWorkloads + main_class);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// `stackscope record OPTIONS -o FILE -- java …` for an API workload.
inline ProcessResult recordApi(const std::vector<std::string>& options, const std::string& file,
                               const std::string& main_class, const std::vector<std::string>& args = {}) {
  std::vector<std::string> argv{STACKSCOPE_BIN, "record"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-o", file, "--"});
  const auto java_argv = apiJavaCommand(main_class, args);
  argv.insert(argv.end(), java_argv.begin(), java_argv.end());
  return run(argv);
}

// The JVM with the agent given directly: -agentpath:LIB=AGENT_OPTIONS.
inline ProcessResult runWithAgent(const std::string& agent_options, const std::string& main_class,
                                  const std::vector<std::string>& args = {}) {
  return run(apiJavaCommand(main_class, args, {"-agentpath:" + agentPath() + "=" + agent_options}));
}

// Samples of the group whose value is `value` in a group view (users, requests, …), 0 if absent.
inline double groupSamples(const json& view, const std::string& array, const std::string& value) {
  const json* item = find(view, array, "value", value);
  return item ? item->at("samples").get<double>() : 0.0;
}

// The `total` samples of a method in a methods view, 0 if absent.
inline double methodTotal(const json& methods, const std::string& method) {
  const json* item = find(methods, "methods", "method", method);
  return item ? item->at("total").get<double>() : 0.0;
}

// Whether any method of the methods view starts with `prefix`.
inline bool anyMethodStartsWith(const json& methods, const std::string& prefix) {
  for (const json& m : methods.at("methods")) {
    if (m.value("method", "").rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace it

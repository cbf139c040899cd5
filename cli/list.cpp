// `stackscope list`: the JVMs of this machine that this user can see, with their main
// class, whether the stackscope agent is loaded in them and its control server's address.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "export/json_report.h"
#include "native/jvm_processes.h"
#include "protocol/discovery.h"

namespace stackscope::cli {

namespace {

// The control server's address of a JVM whose agent is loaded; "" when it runs none (a
// control file left by an earlier process of that pid is not this one's).
std::string controlAddress(const native::JvmProcess& jvm) {
  protocol::AgentLocation location;
  std::string error;
  return jvm.agent_loaded && protocol::locateAgent(jvm.pid, location, error) ? location.address : std::string();
}

int runList(bool json) {
  const std::vector<native::JvmProcess> jvms = native::listJvms();
  if (json) {
    exporting::Json list = exporting::Json::array();
    for (const native::JvmProcess& jvm : jvms) {
      list.push_back({{"pid", jvm.pid},
                      {"main_class", jvm.main_class},
                      {"user", jvm.user},
                      {"agent_loaded", jvm.agent_loaded},
                      {"control_address", controlAddress(jvm)}});
    }
    exporting::writeJson(std::cout, exporting::Json{{"jvms", list}});
    return 0;
  }
  if (jvms.empty()) {
    std::cout << "No JVM found (only this user's JVMs are visible, unless run as root).\n";
    return 0;
  }
  std::printf("%-8s %-10s %-6s %-22s %s\n", "PID", "USER", "AGENT", "CONTROL", "MAIN");
  for (const native::JvmProcess& jvm : jvms) {
    const std::string address = controlAddress(jvm);
    std::printf("%-8d %-10s %-6s %-22s %s\n", static_cast<int>(jvm.pid), jvm.user.c_str(),
                jvm.agent_loaded ? "yes" : "no", address.empty() ? "-" : address.c_str(),
                jvm.main_class.empty() ? "?" : jvm.main_class.c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace

Command addListCommand(CLI::App& parent) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = parent.add_subcommand("list", "List the JVMs running on this machine");
  cmd->footer("AGENT says whether libstackscope.so is loaded in the JVM (it stays loaded, idle, after a detach);\n"
              "CONTROL is its control server's address when it runs one.");
  cmd->add_flag("--json", *json, "Print one JSON object instead of text");
  return {cmd, [json] { return runList(*json); }};
}

}  // namespace stackscope::cli

// What the agent does to its own process's environment at load, before any Java code runs
// (so before the JVM can start a child or copy the environment for System.getenv):
// * a marker that says "the agent is loaded in process PID", so a second copy of the agent
//   (another path to it, or one from JAVA_TOOL_OPTIONS and one on the command line) can tell
//   it is not the first: a child JVM inherits the marker but has another pid;
// * the children= option (tool_options.h).
#pragma once

#include <string>

#include "agent/options.h"

namespace stackscope::agent {

inline constexpr const char* kLoadedMarkerVariable = "STACKSCOPE_AGENT_PID";

// True for the first load of the agent in this process (and marks the process); false when
// this copy or another one was loaded already.
bool claimProcess();

// Applies options.children to JAVA_TOOL_OPTIONS; `options_text` is what the JVM passed to
// this agent, handed on unchanged to the children. Returns a line for stderr when the
// children cannot be followed, else an empty string.
std::string applyChildren(Children children, const std::string& options_text);

}  // namespace stackscope::agent

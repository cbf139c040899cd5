// JAVA_TOOL_OPTIONS, which every JVM reads at start-up, is how the agent reaches JVMs that a
// profiled program starts (jshell's execution JVM, a build tool's forked JVMs). With
// children=no the agent takes itself out of its own process's copy before any child can be
// started; with children=yes it puts itself in, so children load it whatever launched the
// parent. Pure string editing here; agent.cpp applies it to the environment.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace stackscope::agent {

// The environment variable's name and the option that loads an agent by path.
inline constexpr const char* kToolOptionsVariable = "JAVA_TOOL_OPTIONS";
inline constexpr std::string_view kAgentPathOption = "-agentpath:";

// `tool_options` without every -agentpath:PATH[=OPTIONS] item for which `is_this_agent(PATH)`
// holds; the other items keep their order, joined by single spaces (the JVM splits the
// variable at white space, so nothing else changes meaning).
std::string withoutAgent(std::string_view tool_options,
                         const std::function<bool(std::string_view path)>& is_this_agent);

}  // namespace stackscope::agent

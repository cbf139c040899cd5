#include "agent/process_env.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "agent/tool_options.h"

namespace stackscope::agent {

namespace {

bool g_claimed = false;  // Agent_OnLoad calls come one after another: no race

std::string realPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) ? std::string(resolved) : path;
}

// The path this copy of the agent was loaded from, as the JVM gave it to dlopen.
std::string ownPath() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&claimProcess), &info) == 0 || !info.dli_fname) return {};
  return info.dli_fname;
}

bool hasSpace(const std::string& text) { return text.find_first_of(" \t\n\r") != std::string::npos; }

}  // namespace

bool claimProcess() {
  const std::string pid = std::to_string(::getpid());
  const char* marker = std::getenv(kLoadedMarkerVariable);
  if (g_claimed || (marker && pid == marker)) return false;
  g_claimed = true;
  ::setenv(kLoadedMarkerVariable, pid.c_str(), 1);
  return true;
}

std::string applyChildren(Children children, const std::string& options_text) {
  if (children == Children::Keep) return {};
  const std::string own = ownPath();
  if (own.empty()) return "stackscope: children=: cannot tell where the agent was loaded from";
  const std::string own_real = realPath(own);
  const char* existing = std::getenv(kToolOptionsVariable);
  std::string value = withoutAgent(existing ? existing : "", [&](std::string_view path) {
    return realPath(std::string(path)) == own_real;
  });
  if (children == Children::Follow) {
    if (hasSpace(own) || hasSpace(options_text)) {
      return "stackscope: children=yes: the agent path or its options contain white space, which " +
             std::string(kToolOptionsVariable) + " cannot carry; JVMs started from this one are not profiled";
    }
    if (!value.empty()) value += ' ';
    value += std::string(kAgentPathOption) + own + "=" + options_text;
  }
  if (value.empty()) {
    ::unsetenv(kToolOptionsVariable);
  } else {
    ::setenv(kToolOptionsVariable, value.c_str(), 1);
  }
  return {};
}

}  // namespace stackscope::agent

#include "agent/tool_options.h"

namespace stackscope::agent {

namespace {
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
}  // namespace

std::string withoutAgent(std::string_view tool_options,
                         const std::function<bool(std::string_view path)>& is_this_agent) {
  std::string kept;
  size_t i = 0;
  while (i < tool_options.size()) {
    while (i < tool_options.size() && isSpace(tool_options[i])) ++i;
    const size_t start = i;
    while (i < tool_options.size() && !isSpace(tool_options[i])) ++i;
    const std::string_view item = tool_options.substr(start, i - start);
    if (item.empty()) break;
    if (item.substr(0, kAgentPathOption.size()) == kAgentPathOption) {
      const std::string_view path = item.substr(kAgentPathOption.size(), item.find('=') - kAgentPathOption.size());
      if (is_this_agent(path)) continue;
    }
    if (!kept.empty()) kept += ' ';
    kept.append(item);
  }
  return kept;
}

}  // namespace stackscope::agent

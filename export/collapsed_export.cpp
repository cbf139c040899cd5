// Folded stacks: one line per distinct stack, its frames outermost first joined by ';', a
// space, and the value. Readers split a line at its last space and a stack at every ';', so a
// frame name keeps its spaces ("Main.work(int, String)") but a ';' in one (none in Java, rare
// in C++) becomes ',', and line breaks become spaces.
#include <string>

#include "export/stack_exports.h"

namespace stackscope::exporting {

namespace {

void appendFrameName(std::string& line, const std::string& name) {
  for (char c : name) line.push_back(c == ';' ? ',' : (c == '\n' || c == '\r') ? ' ' : c);
}

}  // namespace

void writeCollapsed(std::ostream& out, const analysis::StackProfile& profile) {
  std::string line;
  for (const analysis::ProfileStack& stack : profile.stacks) {
    if (stack.value == 0) continue;
    line.clear();
    for (size_t i = 0; i < stack.frames.size(); ++i) {
      if (i > 0) line.push_back(';');
      appendFrameName(line, profile.frames[stack.frames[i]].name);
    }
    line += ' ' + std::to_string(stack.value) + '\n';
    out << line;
  }
}

}  // namespace stackscope::exporting

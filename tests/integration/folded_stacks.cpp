#include "folded_stacks.h"

#include <algorithm>
#include <sstream>

#include "harness.h"

namespace it {

std::vector<FoldedStack> foldedStacks(const std::string& path, const std::string& where, const std::string& event) {
  std::vector<std::string> args{STACKSCOPE_BIN, "export", path, "--format", "collapsed", "--where", where, "-o", "-"};
  if (!event.empty()) args.insert(args.end(), {"--event", event});
  ProcessResult folded = run(args);
  EXPECT_EQ(folded.exit_code, 0) << folded.err;
  std::vector<FoldedStack> stacks;
  std::istringstream lines(folded.out);
  for (std::string line; std::getline(lines, line);) {
    const size_t space = line.rfind(' ');
    if (space == std::string::npos) continue;
    FoldedStack stack;
    stack.samples = std::stod(line.substr(space + 1));
    std::istringstream frames(line.substr(0, space));
    for (std::string frame; std::getline(frames, frame, ';');) stack.frames.push_back(frame);
    stacks.push_back(stack);
  }
  return stacks;
}

std::vector<std::string> aboveBottom(const std::vector<std::string>& frames) {
  if (frames.empty() || frames.front() != "__clone3") return frames;
  const auto entry = std::find(frames.begin(), frames.end(), "[stub] call_stub");
  return entry == frames.end() ? frames : std::vector<std::string>(entry + 1, frames.end());
}

std::string describe(const FoldedStack& stack) {
  std::string line;
  for (const std::string& frame : stack.frames) line += frame + ";";
  return line + " " + std::to_string(stack.samples) + "\n";
}

}  // namespace it

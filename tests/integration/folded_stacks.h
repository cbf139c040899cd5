// A recording's stacks as `stackscope export --format collapsed` writes them, parsed: the
// mixed-mode tests check the order of frames, native and Java, along whole stacks.
#pragma once

#include <string>
#include <vector>

namespace it {

struct FoldedStack {
  std::vector<std::string> frames;  // outermost first
  double samples = 0;
};

// The stacks of the threads `where` selects (a --where expression) in the recording at `path`,
// of the events `event` names (the recording's own when empty).
std::vector<FoldedStack> foldedStacks(const std::string& path, const std::string& where, const std::string& event = "");

// The frames from the outermost Java frame in: without the native frames mixed mode shows below
// it (__clone3 ... "[stub] call_stub", the outermost call into Java: mixed_mode_below_test.cpp
// checks them), for the tests of the frames above.
std::vector<std::string> aboveBottom(const std::vector<std::string>& frames);

// The frames as one line, outermost first, and the sample count: for failure messages.
std::string describe(const FoldedStack& stack);

}  // namespace it

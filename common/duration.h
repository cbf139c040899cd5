// Durations as users write them: "10ms", "2s", "1h40m", "250us", "500ns".
// Shared by the agent's option parser and the command line; exception-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stackscope {

// Parses a sequence of <integer><unit> terms (units ns, us, ms, s, m, h), e.g. "1h40m".
// A bare number is refused: "10" is ambiguous. Returns nullopt on any error or overflow.
std::optional<int64_t> parseDuration(std::string_view text);

// Formats nanoseconds compactly for people: "1h40m", "2.5s", "10ms", "250us".
std::string formatDuration(int64_t ns);

}  // namespace stackscope

// The control server's secret: 32 random bytes as 64 hex digits, compared in constant time.
#pragma once

#include <string>
#include <string_view>

namespace stackscope::protocol {

// From getrandom(2); "" if the kernel gives no randomness (the server then refuses to start).
std::string newToken();
// Equal length and bytes, in a time that does not depend on where they differ.
bool sameToken(std::string_view a, std::string_view b);

}  // namespace stackscope::protocol

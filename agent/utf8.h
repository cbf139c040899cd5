// UTF-16 (Java strings) to standard UTF-8. JNI's GetStringUTFChars gives "modified UTF-8",
// where a supplementary character (an emoji) is two 3-byte surrogate encodings and U+0000
// is C0 80: neither is valid UTF-8 for the readers of a recording, so the agent converts
// the UTF-16 units itself. Pure, unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace stackscope::agent {

// Appends the UTF-8 of units[0, count) to `out`, writing at most max_bytes: it stops before
// the first character that would not fit whole. An unpaired surrogate becomes U+FFFD.
// Returns the number of units consumed (count unless it stopped at max_bytes).
size_t appendUtf8FromUtf16(const uint16_t* units, size_t count, size_t max_bytes, std::string& out);

}  // namespace stackscope::agent

// How methods and threads are named for people: `package.Class.method` (class names are
// stored dotted, inner classes as `Outer$Inner`), the JVM descriptor kept apart so overloads
// can be told apart where the output has room for it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/recording.h"

namespace stackscope::analysis {

std::string methodName(const Recording& recording, uint32_t method);
const std::string& methodSignature(const Recording& recording, uint32_t method);
// methodName for every method id, for statistics that compare names many times.
std::vector<std::string> methodNames(const Recording& recording);

std::string threadName(const Recording& recording, uint32_t thread);

}  // namespace stackscope::analysis

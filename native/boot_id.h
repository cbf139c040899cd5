// The kernel's boot id (/proc/sys/kernel/random/boot_id): kernel addresses, and the vDSO, are
// only the same code in the boot that saw them. The agent records it; the front-end names
// kernel frames only when it runs in that boot (native/file_symbolizer.h).
#pragma once

#include <string>

namespace stackscope::native {

// This boot's id, empty when it cannot be read.
std::string currentBootId();

}  // namespace stackscope::native

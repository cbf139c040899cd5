// Maps JVMTI thread state bits to the recording's thread states.
#pragma once

#include <cstdint>

#include "format/records.h"

namespace stackscope::agent {

// `bits` as returned by JVMTI GetThreadState.
format::ThreadState threadStateFromJvmti(int32_t bits);

}  // namespace stackscope::agent

// Turns a parsed --where expression into a SamplePredicate over one recording.
#pragma once

#include "analysis/view.h"
#include "analysis/where_parser.h"

namespace stackscope::analysis {

// The predicate keeps a reference to `recording`, which must outlive it. Conditions on the
// stack (class, method, package, path) and on the thread are decided once per distinct
// stack or thread and cached, so a filter costs a few table lookups per sample.
SamplePredicate compileWhere(const WhereNode& expression, const Recording& recording);

}  // namespace stackscope::analysis

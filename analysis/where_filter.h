// Turns a parsed --where expression into an EventPredicate over one recording.
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"
#include "analysis/where_parser.h"

namespace stackscope::analysis {

// The predicate keeps a reference to `recording`, which must outlive it. Conditions on the
// stack (class, method, package, path) and on the thread are decided once per distinct
// stack or thread and cached, so a filter costs a few table lookups per sample.
EventPredicate compileWhere(const WhereNode& expression, const Recording& recording);

// The values of the expression's method, path, class and package conditions that match no
// method of the recording (a typo, an overload that does not exist): a filter that silently
// keeps nothing would read as "never ran".
std::vector<std::string> unmatchedMethodPatterns(const WhereNode& expression, const Recording& recording);

}  // namespace stackscope::analysis

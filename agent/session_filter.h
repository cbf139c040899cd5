// The control's filter command (docs/protocol.md): the running session's thread annotation
// filter and its alloc trace's classes, replaced at run time.
//
// A new annotation filter is settled for every combination the session knows
// (annotation_table.h) and for every thread the session samples at once: each is included or
// left out (its CPU timer armed or disarmed) by its current annotation, as if it had just
// annotated itself, as a filter given at the start decides. The JVM's own threads of mixed
// mode carry no annotation: a filter leaves them out, and clearing it brings them back.
#pragma once

#include <string>

#include "agent/control_handler.h"

namespace stackscope::agent {

struct Session;

// Applies `change` to `session` (recording, with the control mutex held). False with
// `message` set, nothing changed, on a malformed filter or classes for a session without the
// alloc trace; else `message` says what is in force.
bool changeSessionFilters(Session& session, const FilterChange& change, std::string& message);

}  // namespace stackscope::agent

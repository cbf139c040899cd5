#include "agent/lost_counters.h"

namespace stackscope::agent {

format::LostReason lostReasonForWalkError(int num_frames) {
  using format::LostReason;
  switch (num_frames) {
    case 0: return LostReason::NoJavaFrame;
    case -1: return LostReason::ClassLoad;       // class load events were not enabled yet
    case -2: return LostReason::GcActive;
    case -3: return LostReason::NotInJava;       // in the JVM or native code, no Java frame anchor
    case -4:                                     // not walkable, not in Java
    case -6: return LostReason::NotWalkable;     // not walkable, in Java
    case -8: return LostReason::ThreadExiting;
    case -9: return LostReason::Deopt;
    case -10: return LostReason::Safepoint;
    default: return LostReason::UnknownState;
  }
}

}  // namespace stackscope::agent

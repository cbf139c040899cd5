#include "format/records.h"

namespace stackscope::format {

const char* threadStateName(ThreadState state) {
  switch (state) {
    case ThreadState::Running: return "running";
    case ThreadState::Blocked: return "blocked";
    case ThreadState::Waiting: return "waiting";
    case ThreadState::TimedWaiting: return "timed_waiting";
    case ThreadState::Sleeping: return "sleeping";
    case ThreadState::Native: return "native";
    case ThreadState::Parked: return "parked";
    case ThreadState::Idle: return "idle";
    case ThreadState::Safepoint: return "safepoint";
    case ThreadState::Gc: return "gc";
    case ThreadState::Unknown: break;
  }
  return "unknown";
}

const char* nonSafepointDebugName(NonSafepointDebug value) {
  switch (value) {
    case NonSafepointDebug::Off: return "off";
    case NonSafepointDebug::On: return "on";
    case NonSafepointDebug::NotRecorded: break;
  }
  return "not recorded";
}

const char* lostReasonName(LostReason reason) {
  switch (reason) {
    case LostReason::NoJavaFrame: return "no_java_frame";
    case LostReason::NotWalkable: return "not_walkable";
    case LostReason::GcActive: return "gc_active";
    case LostReason::ClassLoad: return "class_load";
    case LostReason::ThreadExiting: return "thread_exiting";
    case LostReason::Deopt: return "deopt";
    case LostReason::Safepoint: return "safepoint";
    case LostReason::UnknownState: return "unknown_state";
    case LostReason::BufferFull: return "buffer_full";
    case LostReason::ThreadUnknown: return "thread_unknown";
    case LostReason::TimerOverrun: return "timer_overrun";
    case LostReason::NotInJava: return "not_in_java";
    case LostReason::StoppedNoStack: return "stopped_no_stack";
  }
  return "other";
}

const char* annotationFieldName(AnnotationField field) {
  switch (field) {
    case AnnotationField::User: return "user";
    case AnnotationField::Session: return "session";
    case AnnotationField::Request: return "request";
    case AnnotationField::Application: return "application";
    case AnnotationField::Component: return "component";
  }
  return "?";
}

std::vector<std::string> sampleMetricNames(uint32_t metrics) {
  std::vector<std::string> names;
  if (metrics & kSampleCpuTime) names.emplace_back("cpu-time");
  if (metrics & kSampleAllocBytes) names.emplace_back("alloc-bytes");
  return names;
}

}  // namespace stackscope::format

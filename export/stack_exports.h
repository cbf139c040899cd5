// The formats other tools read a profile in, each one serialisation of the same stack profile
// (analysis/stack_profile.h): the events of one kind summed per call stack in one metric.
//   collapsed   folded stacks, "outer;…;inner VALUE" per line: the input of flame graph tools
//   pprof       gzipped profile.proto, for `go tool pprof` and its web UI
//   speedscope  speedscope's JSON file format (a "sampled" profile)
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "analysis/stack_profile.h"

namespace stackscope::exporting {

// What a profile is of, for the formats that say it.
struct ProfileMeta {
  std::string name;             // shown by the reader: the recording's file name
  const analysis::MetricInfo* metric = nullptr;
  analysis::EventKind kind = analysis::EventKind::Cpu;
  int64_t start_epoch_ns = 0;   // the recording's time 0, wall clock
  int64_t duration_ns = 0;      // what the selection covers
  int64_t period_ns = 0;        // the sampling interval of time samples; 0 for traces
};

void writeCollapsed(std::ostream& out, const analysis::StackProfile& profile);
// The gzipped bytes of the profile.proto message.
std::string pprofBytes(const analysis::StackProfile& profile, const ProfileMeta& meta);
void writeSpeedscope(std::ostream& out, const analysis::StackProfile& profile, const ProfileMeta& meta);

}  // namespace stackscope::exporting

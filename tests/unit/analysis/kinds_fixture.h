// A hand-built recording of two event kinds, cpu and wall (mode "cpu,wall", 10ms interval),
// whose answers are known by construction:
//
//   methods  app.Main.main, app.Work.crunch, app.Work.nap, java.lang.Thread.sleep
//   stacks   (outermost first)  SC main > crunch      SS main > nap > sleep
//   threads  main (1), worker (2); annotations: user u1 (1), user u2 (2)
//   cpu      main 0, 10, 20 SC (u1); worker 5 SC weight 2 (u2)             = 5 samples
//   wall     main 0, 10, 20 SC running (u1); main 30 SS sleeping, 40 SS sleeping weight 3 (u1);
//            worker 5 SS sleeping weight 4 (u2)                             = 11 samples
//
// Time is samples x 10ms. A status report at 25ms; markers "late" [25ms, 50ms).
#pragma once

#include <cstdint>
#include <string>

namespace stackscope::testing {

inline constexpr int64_t kKindsIntervalNs = 10 * 1000000;
// By construction (see above), per kind.
inline constexpr uint64_t kCpuSamples = 5, kWallSamples = 11;
inline constexpr uint64_t kWallSleepSamples = 1 + 3 + 4;       // every SS sample
inline constexpr uint64_t kWallCrunchSamples = 3, kCpuCrunchSamples = 5;
inline constexpr uint64_t kWallMainThread = 3 + 1 + 3, kWallWorker = 4;
inline constexpr uint64_t kCpuMainThread = 3, kCpuWorker = 2;
inline constexpr uint64_t kWallLate = 1 + 3;                   // wall samples at 30 and 40ms

void writeKindsRecording(const std::string& path);

}  // namespace stackscope::testing

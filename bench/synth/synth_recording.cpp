// Writes a synthetic recording for the analysis benchmarks (bench/analysis.sh): a steady
// workload of `threads` threads sampled every `interval`, drawing each sample's stack from
// `stacks` distinct call paths of depth `depth`, with users u0..u3 as annotations, flushed
// once per simulated second like the agent. Not a test: its numbers are what we time.
//
//   synth_recording OUT.ssr SAMPLES DURATION_S [threads=8] [stacks=2000] [depth=24]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "format/writer.h"

using namespace stackscope::format;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s OUT.ssr SAMPLES DURATION_S [threads] [stacks] [depth]\n", argv[0]);
    return 1;
  }
  const uint64_t samples = std::strtoull(argv[2], nullptr, 10);
  const int64_t duration_ns = std::strtoll(argv[3], nullptr, 10) * 1000000000LL;
  const uint32_t threads = argc > 4 ? std::atoi(argv[4]) : 8;
  const uint32_t stacks = argc > 5 ? std::atoi(argv[5]) : 2000;
  const uint32_t depth = argc > 6 ? std::atoi(argv[6]) : 24;
  constexpr uint32_t kMethods = 400;

  RecordingWriter w;
  if (!w.open(argv[1])) {
    std::fprintf(stderr, "%s\n", w.lastError().c_str());
    return 1;
  }
  w.writeInfo({1714564800000000000LL, "cpu", duration_ns / static_cast<int64_t>(samples / threads + 1), 1000000000, 1, "synthetic", "synth", {}, /*sample_metrics=*/0, /*boot_id=*/""});
  for (uint32_t m = 1; m <= kMethods; ++m)
    w.writeMethod({m, w.internString("bench.pkg" + std::to_string(m % 7) + ".Class" + std::to_string(m % 40)),
                   w.internString("method" + std::to_string(m)), w.internString("()V"), 0, {}});
  for (uint32_t t = 1; t <= threads; ++t) w.writeThread({t, "worker-" + std::to_string(t), 1000 + t, t});
  for (uint32_t a = 1; a <= 4; ++a) {
    AnnotationRecord record{a, {}};
    record.fields[0] = w.internString("u" + std::to_string(a - 1));
    w.writeAnnotation(record);
  }
  // Call paths share prefixes, as real ones do: path i extends a shorter path.
  std::mt19937 rng(42);
  std::vector<uint32_t> stack_ids;
  std::vector<Frame> frames;
  for (uint32_t s = 0; s < stacks; ++s) {
    frames.clear();
    std::uniform_int_distribution<uint32_t> method(1, kMethods);
    std::mt19937 path_rng(s / 10);  // ten paths per prefix family
    for (uint32_t d = 0; d + 1 < depth; ++d) frames.push_back({std::uniform_int_distribution<uint32_t>(1, kMethods)(path_rng), static_cast<int32_t>(d)});
    frames.insert(frames.begin(), Frame{method(rng), 0});
    stack_ids.push_back(w.internStack(frames.data(), frames.size()));
  }
  // Skewed popularity: a few hot stacks, a long tail.
  std::geometric_distribution<uint32_t> pick(0.01);
  const int64_t step = duration_ns / static_cast<int64_t>(samples);
  int64_t next_flush = 1000000000;
  for (uint64_t i = 0; i < samples; ++i) {
    const int64_t time = static_cast<int64_t>(i) * step;
    if (time >= next_flush) {
      if (!w.flush()) return 1;
      next_flush += 1000000000;
    }
    const uint32_t thread = 1 + static_cast<uint32_t>(i % threads);
    w.writeSample({time, thread, stack_ids[pick(rng) % stacks], ThreadState::Running, 1, 1 + thread % 4});
  }
  if (!w.finish(duration_ns)) return 1;
  std::printf("%s: %llu samples, %llu bytes\n", argv[1], static_cast<unsigned long long>(w.samplesWritten()),
              static_cast<unsigned long long>(w.bytesWritten()));
  return 0;
}

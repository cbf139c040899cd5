// Rotation (record --rotate, --maxfiles): a recording cut into files of one second each, where
// every file reads on its own and `report` over the set is their sum, with the workload's known
// CPU split.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "harness.h"

namespace it {
namespace {

namespace fs = std::filesystem;

constexpr double kSharePoints = 3.0;  // as CpuShares: each method's share of the samples

class Rotation : public RecordingTest {
 protected:
  // The recording files of the test's directory whose names begin with `stem`, sorted.
  std::vector<std::string> files(const std::string& stem) const {
    std::vector<std::string> found;
    for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(file(stem)).parent_path())) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && name.rfind(stem, 0) == 0 && name.ends_with(".ssr")) found.push_back(entry.path().string());
    }
    // In the order written: run.ssr, run-1.ssr, …, run-10.ssr (by name alone run-10 would
    // come before run-2, and run.ssr last).
    std::sort(found.begin(), found.end(),
              [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
    return found;
  }
  // Each file's own samples (stackscope info), after checking that report reads a part alone
  // (the first file's name stands for the whole set).
  std::map<std::string, double> samplesOf(const std::vector<std::string>& paths, const std::string& first) const {
    std::map<std::string, double> samples;
    for (const std::string& path : paths) {
      const json info = query({"info", path});
      EXPECT_TRUE(info.at("finished").get<bool>()) << path;
      samples[path] = info.at("samples").get<double>();
      if (path == file(first)) continue;
      const json alone = report(path, {"--no-cache"});
      EXPECT_EQ(alone.at("samples").get<double>(), samples[path]) << path;
    }
    return samples;
  }
  static double sum(const std::map<std::string, double>& samples) {
    double total = 0;
    for (const auto& [path, n] : samples) total += n;
    return total;
  }
};

// 5 s of CPU split 50/30/20 among alpha, beta and gamma, in files of 1 s.
TEST_F(Rotation, EveryFileReadsAloneAndTheSetIsTheirSum) {
  ProcessResult rec = record({"-e", "cpu", "-i", "10ms", "--rotate", "1s"}, file("three.ssr"), "ThreeWay", {"5000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::map<std::string, double> cpu = truth(rec.out);
  ASSERT_EQ(cpu.size(), 3u) << rec.out;
  const std::vector<std::string> parts = files("three");
  ASSERT_GE(parts.size(), 4u) << "5 s of CPU in files of 1 s";
  const std::map<std::string, double> each = samplesOf(parts, "three.ssr");
  // Every file has samples but the last, which holds only the run's end after the last
  // rotation: a CI run ended 5 ms into it, with no sample due yet.
  for (size_t i = 0; i + 1 < parts.size(); ++i) EXPECT_GT(each.at(parts[i]), 0) << parts[i];

  const json set = report(file("three.ssr"), {"--top", "0"});
  EXPECT_EQ(set.at("samples").get<double>(), sum(each));
  double cpu_sum = 0, sample_sum = 0;
  std::map<std::string, double> samples;
  for (const auto& [name, nanos] : cpu) {
    const json* m = find(set, "methods", "method", kWorkloads + "ThreeWay." + name);
    ASSERT_NE(m, nullptr) << name << " missing from " << set.dump(1);
    samples[name] = m->at("total").get<double>();
    sample_sum += samples[name];
    cpu_sum += nanos;
  }
  for (const auto& [name, nanos] : cpu)
    EXPECT_NEAR(100 * samples[name] / sample_sum, 100 * nanos / cpu_sum, kSharePoints) << name;
  // Samples due at 10 ms of CPU: the rotations lose none.
  EXPECT_GE(sample_sum, 0.9 * cpu_sum / 10e6) << set.at("lost").dump();
}

// With maxfiles=2 only the newest two files stay; report over what stays is their sum. A part
// of an earlier recording under the same name is removed by record, as the first file is.
TEST_F(Rotation, MaxFilesKeepsTheNewest) {
  std::ofstream(file("kept-9.ssr")) << "an earlier recording's part";
  ProcessResult rec = record({"-e", "cpu", "--rotate", "1s", "--maxfiles", "2"}, file("kept.ssr"), "ThreeWay", {"4000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::vector<std::string> parts = files("kept");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_FALSE(fs::exists(file("kept.ssr"))) << "the first file is the oldest";
  const double kept = sum(samplesOf(parts, "kept.ssr"));
  EXPECT_GT(kept, 0);
  EXPECT_EQ(report(file("kept.ssr")).at("samples").get<double>(), kept);
}

// Wall mode repeats an idle thread's last stack without walking it again: after a rotation
// that stack is named in the new file, so the sleeping thread shows asleep in every file.
TEST_F(Rotation, IdleThreadsKeepTheirStackAcrossFiles) {
  ProcessResult rec = record({"-e", "wall", "--rotate", "1s"}, file("wall.ssr"), "Sleeper", {"4000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::vector<std::string> parts = files("wall");
  ASSERT_GE(parts.size(), 3u);
  // The files that lie inside the sleeper's sleep (every sample of it there sleeping: not the
  // first, with its start, nor those after main's burn, when a loaded machine stretches the
  // run): in each, all its samples are in its own sleeping stack. At least two such files.
  size_t asleep_throughout = 0;
  for (size_t i = 1; i + 1 < parts.size(); ++i) {
    const json threads = report(parts[i], {"--view", "threads", "--no-cache"});
    const json* sleeper = find(threads, "threads", "name", "sleeper");
    if (!sleeper || sleeper->at("states").value("sleeping", 0.0) != sleeper->at("samples").get<double>()) continue;
    ++asleep_throughout;
    const json methods = report(parts[i], {"--where", "thread=sleeper", "--no-cache"});
    const json* sleep = find(methods, "methods", "method", kWorkloads + "Sleeper.sleepUntilInterrupted");
    ASSERT_NE(sleep, nullptr) << parts[i] << ": " << methods.dump(1);
    EXPECT_EQ(sleep->at("total").get<double>(), methods.at("samples").get<double>()) << parts[i];
    EXPECT_EQ(methods.at("lost").value("unknown_state", 0.0), 0) << parts[i];
  }
  EXPECT_GE(asleep_throughout, 2u) << "files with the sleeper asleep throughout";
}

}  // namespace
}  // namespace it

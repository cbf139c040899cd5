// A varied real workload profiled by stackscope and by JFR's CPU-time sampler (JDK 25+,
// jdk.CPUTimeSample, which like stackscope's cpu mode samples each thread by its CPU time):
// javac compiling java.util's sources from the JDK's src.zip. The self shares of the top 10
// methods of either side must agree within 5 percentage points (the target).
//
// Both are samplers of one run each, and javac's work differs a little from run to run (JIT
// timing): the 5 pp tolerance is for methods of a few percent up to 15 % of the samples.
// stackscope runs with --no-native: JFR names Java methods only, so a sample in native or
// VM code is credited to its innermost Java frame on both sides.
#include <filesystem>
#include <map>
#include <set>

#include "harness.h"
#include "process.h"

namespace it {
namespace {

namespace fs = std::filesystem;

class JfrCrossCheck : public RecordingTest {};

// The JDK's home, from the java the tests run.
fs::path jdkHome() { return fs::path(java()).parent_path().parent_path(); }

std::map<std::string, double> ourSelfShares(const json& methods) {
  std::map<std::string, double> shares;
  const double total = methods.at("samples").get<double>();
  for (const json& m : methods.at("methods"))
    if (m.at("self").get<double>() > 0) shares[m.at("method").get<std::string>()] = m.at("self").get<double>() / total;
  return shares;
}

// jfr print --json --stack-depth 1: each sample's top frame, as "pkg.Class.method".
std::map<std::string, double> jfrSelfShares(const json& printed) {
  std::map<std::string, double> counts;
  double total = 0;
  for (const json& event : printed.at("recording").at("events")) {
    const json& values = event.at("values");
    if (!values.contains("stackTrace") || values.at("stackTrace").is_null()) continue;
    const json& frames = values.at("stackTrace").at("frames");
    if (frames.empty()) continue;
    const json& method = frames.at(0).at("method");
    std::string type = method.at("type").at("name").get<std::string>();
    std::replace(type.begin(), type.end(), '/', '.');
    counts[type + "." + method.at("name").get<std::string>()] += 1;
    total += 1;
  }
  for (auto& [name, count] : counts) count /= total;
  return counts;
}

std::set<std::string> top(const std::map<std::string, double>& shares, size_t n) {
  std::vector<std::pair<double, std::string>> sorted;
  for (const auto& [name, share] : shares) sorted.emplace_back(-share, name);
  std::sort(sorted.begin(), sorted.end());
  std::set<std::string> names;
  for (size_t i = 0; i < std::min(n, sorted.size()); ++i) names.insert(sorted[i].second);
  return names;
}

TEST_F(JfrCrossCheck, JavacTopTenSelfSharesAgreeWithJfrsCpuTimeSampler) {
  const fs::path jdk = jdkHome();
  const fs::path jfr = jdk / "bin" / "jfr", javac = jdk / "bin" / "javac", jar = jdk / "bin" / "jar";
  const fs::path src_zip = jdk / "lib" / "src.zip";
  if (!fs::exists(jfr) || !fs::exists(javac) || !fs::exists(src_zip)) GTEST_SKIP() << jdk << " has no jfr, javac or src.zip";
  // jdk.CPUTimeSample came with JDK 25.
  const ProcessResult version = run({java(), "-XshowSettings:properties", "-version"});
  const std::string key = "java.specification.version = ";
  const auto at = version.err.find(key);
  ASSERT_NE(at, std::string::npos) << version.err;
  if (std::stoi(version.err.substr(at + key.size())) < 25) GTEST_SKIP() << "jdk.CPUTimeSample needs JDK 25";

  const fs::path dir = file("src");
  fs::create_directories(dir);
  ProcessResult unpacked = run({"/bin/sh", "-c", "cd '" + dir.string() + "' && '" + jar.string() + "' xf '" +
                                                  src_zip.string() + "' java.base/java/util"});
  ASSERT_EQ(unpacked.exit_code, 0) << unpacked.err;
  std::vector<std::string> sources;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "java.base"))
    if (entry.path().extension() == ".java") sources.push_back(entry.path().string());
  std::sort(sources.begin(), sources.end());
  ASSERT_GT(sources.size(), 200u);
  auto compile = [&](std::vector<std::string> argv, const std::string& out) {
    argv.insert(argv.end(), {"--patch-module", "java.base=" + (dir / "java.base").string(), "-d", file(out)});
    argv.insert(argv.end(), sources.begin(), sources.end());
    return run(argv, std::chrono::minutes(5));
  };

  ProcessResult ours = compile({STACKSCOPE_BIN, "record", "-e", "cpu", "-i", "5ms", "--no-native", "-o",
                                file("javac.ssr"), "--", javac.string()},
                               "out1");
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  ProcessResult theirs = compile({javac.string(), "-J-XX:StartFlightRecording:jdk.CPUTimeSample#enabled=true,"
                                                  "jdk.CPUTimeSample#throttle=5ms,filename=" + file("javac.jfr")},
                                 "out2");
  ASSERT_EQ(theirs.exit_code, 0) << theirs.err;
  ProcessResult printed = run({jfr.string(), "print", "--json", "--stack-depth", "1", "--events", "jdk.CPUTimeSample",
                               file("javac.jfr")},
                              std::chrono::minutes(2));
  ASSERT_EQ(printed.exit_code, 0) << printed.err;

  const auto our_shares = ourSelfShares(report(file("javac.ssr"), {"--top", "0"}));
  const auto jfr_shares = jfrSelfShares(json::parse(printed.out));
  ASSERT_GT(jfr_shares.size(), 10u);
  std::set<std::string> compared = top(our_shares, 10);
  for (const std::string& name : top(jfr_shares, 10)) compared.insert(name);
  std::string table;
  for (const std::string& name : compared) {
    const double a = our_shares.count(name) ? our_shares.at(name) : 0, b = jfr_shares.count(name) ? jfr_shares.at(name) : 0;
    table += std::to_string(100 * a) + " % vs JFR " + std::to_string(100 * b) + " %  " + name + "\n";
  }
  for (const std::string& name : compared) {
    const double a = our_shares.count(name) ? our_shares.at(name) : 0, b = jfr_shares.count(name) ? jfr_shares.at(name) : 0;
    EXPECT_NEAR(100 * a, 100 * b, 5.0) << name << "\n" << table;
  }
}

}  // namespace
}  // namespace it

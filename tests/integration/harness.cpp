#include "harness.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace it {

std::string java() {
  const char* java = std::getenv("STACKSCOPE_TEST_JAVA");
  return java && *java ? java : DEFAULT_JAVA;
}

std::string agentPath() { return STACKSCOPE_AGENT; }

std::vector<std::string> javaCommand(const std::string& main_class,
                                     const std::vector<std::string>& args,
                                     const std::vector<std::string>& jvm_options) {
  std::vector<std::string> argv{java(), "-Xmx256m", "-XX:+UseSerialGC", "-cp", WORKLOADS_JAR};
  argv.insert(argv.end(), jvm_options.begin(), jvm_options.end());
  argv.push_back(kWorkloads + main_class);
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

ProcessResult record(const std::vector<std::string>& options, const std::string& file,
                     const std::string& main_class, const std::vector<std::string>& args,
                     const std::vector<std::string>& jvm_options) {
  std::vector<std::string> argv{STACKSCOPE_BIN, "record"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {"-o", file, "--"});
  auto java_argv = javaCommand(main_class, args, jvm_options);
  argv.insert(argv.end(), java_argv.begin(), java_argv.end());
  return run(argv);
}

json query(std::vector<std::string> args) {
  std::vector<std::string> argv{STACKSCOPE_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--json");
  ProcessResult r = run(argv, std::chrono::seconds(60));
  std::ostringstream command;
  for (const auto& a : argv) command << a << ' ';
  if (r.exit_code != 0) {
    throw std::runtime_error(command.str() + "exited " + std::to_string(r.exit_code) +
                             " (signal " + std::to_string(r.term_signal) + "): " + r.err);
  }
  json parsed = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    throw std::runtime_error(command.str() + "printed no JSON: " + r.out.substr(0, 500));
  }
  return parsed;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

json report(const std::string& file, const std::vector<std::string>& args) {
  std::vector<std::string> argv{"report", file};
  argv.insert(argv.end(), args.begin(), args.end());
  return query(argv);
}

const json* find(const json& report, const std::string& array, const std::string& key,
                 const std::string& value) {
  if (!report.contains(array)) return nullptr;
  for (const json& item : report.at(array)) {
    if (item.value(key, "") == value) return &item;
  }
  return nullptr;
}

std::map<std::string, double> truth(const std::string& out) {
  std::map<std::string, double> found;
  std::istringstream lines(out);
  std::string word, name;
  double nanos;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    if (fields >> word >> name >> nanos && word == "truth") found[name] = nanos;
  }
  return found;
}

void RecordingTest::SetUp() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "stackscope-it-XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  dir_ = pattern;
}

void RecordingTest::TearDown() {
  if (HasFailure()) {
    std::cerr << "recordings kept in " << dir_ << "\n";
  } else {
    std::filesystem::remove_all(dir_);
  }
}

void expectWithin(double measured, double truth, double tolerance, const std::string& what) {
  EXPECT_GE(measured, truth * (1 - tolerance)) << what;
  EXPECT_LE(measured, truth * (1 + tolerance)) << what;
}

}  // namespace it

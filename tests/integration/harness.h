// What every integration test needs: where the binaries are, how to start a workload with
// or without `stackscope record`, and `stackscope report --json` parsed.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "process.h"

namespace it {

using nlohmann::json;

// Package of the workloads in tests/java, as method names in reports start.
inline const std::string kWorkloads = "io.stackscope.workloads.";

// The JDK under test: $STACKSCOPE_TEST_JAVA (set per JDK by CTest), else the build's java.
std::string java();
std::string agentPath();

// java with a small heap and the serial GC (no test depends on the collector), the
// workload jar on the class path, then `jvm_options`, the main class and its arguments.
std::vector<std::string> javaCommand(const std::string& main_class,
                                     const std::vector<std::string>& args = {},
                                     const std::vector<std::string>& jvm_options = {});

// `stackscope record OPTIONS -o FILE -- java …` for a workload (javaCommand's java).
ProcessResult record(const std::vector<std::string>& options, const std::string& file,
                     const std::string& main_class, const std::vector<std::string>& args = {},
                     const std::vector<std::string>& jvm_options = {});

// `stackscope ARGS --json`, parsed; throws (failing the test) with the command's stderr if
// it does not exit 0 with one JSON document.
json query(std::vector<std::string> args);

// `stackscope report FILE ARGS --json`, parsed, as query does.
json report(const std::string& file, const std::vector<std::string>& args = {});

// The item of report[array] whose `key` equals `value`, or nullptr.
const json* find(const json& report, const std::string& array, const std::string& key,
                 const std::string& value);

// The bytes of a file ("" when it cannot be read).
std::string readAll(const std::string& path);

// The "truth NAME NANOS" lines a workload prints, by name.
std::map<std::string, double> truth(const std::string& out);

// Expects `measured` within ±tolerance (a fraction) of `truth`; `what` names it in a failure.
void expectWithin(double measured, double truth, double tolerance, const std::string& what);

// Gives each test its own directory for recordings; kept when the test fails, for a look.
class RecordingTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::string file(const std::string& name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
};

}  // namespace it

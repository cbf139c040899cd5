// The pure parts of `stackscope list` and `attach`: the main class from a java command line,
// and a string of a PerfData file laid out as HotSpot's perfMemory.hpp describes it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "native/jvm_perf_data.h"
#include "native/jvm_processes.h"

namespace stackscope::native {
namespace {

std::string commandLine(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& arg : args) text += arg + '\0';
  return text;
}

TEST(MainClass, SkipsOptionsAndTheirValues) {
  EXPECT_EQ(mainClassFromCommandLine(commandLine({"java", "-Xmx64m", "-cp", "a.jar:b.jar", "com.shop.Main", "x"})),
            "com.shop.Main");
  EXPECT_EQ(mainClassFromCommandLine(commandLine({"java", "--class-path", "lib/*", "-Dk=v", "Main"})), "Main");
  EXPECT_EQ(mainClassFromCommandLine(commandLine({"java", "-jar", "app.jar", "--port", "8080"})), "-jar app.jar");
  EXPECT_EQ(mainClassFromCommandLine(commandLine({"java", "-p", "mods", "-m", "shop/com.shop.Main"})),
            "-m shop/com.shop.Main");
  EXPECT_EQ(mainClassFromCommandLine(commandLine({"java", "-version"})), "");
  EXPECT_EQ(mainClassFromCommandLine(""), "");
}

// One PerfData entry: header (length, name offset, vector length, type, flags, units,
// variability, data offset), the name, then the data, padded to 4 bytes.
void appendEntry(std::vector<char>& file, const std::string& name, char type, const std::string& data) {
  const uint32_t name_offset = 20;
  const uint32_t data_offset = static_cast<uint32_t>(name_offset + name.size() + 1);
  uint32_t length = static_cast<uint32_t>(data_offset + data.size());
  length = (length + 3) / 4 * 4;
  const uint32_t vector_length = static_cast<uint32_t>(data.size());
  const size_t at = file.size();
  file.resize(at + length, '\0');
  std::memcpy(&file[at], &length, 4);
  std::memcpy(&file[at + 4], &name_offset, 4);
  std::memcpy(&file[at + 8], &vector_length, 4);
  file[at + 12] = type;
  std::memcpy(&file[at + 16], &data_offset, 4);
  std::memcpy(&file[at + name_offset], name.c_str(), name.size() + 1);
  std::memcpy(&file[at + data_offset], data.data(), data.size());
}

std::string writePerfData(const std::vector<char>& entries, uint32_t count, bool good_magic = true) {
  std::vector<char> file(32 + entries.size(), '\0');
  const unsigned char magic[4] = {0xca, 0xfe, 0xc0, static_cast<unsigned char>(good_magic ? 0xc0 : 0x00)};
  std::memcpy(file.data(), magic, 4);
  file[4] = 1;  // little-endian
  const uint32_t entry_offset = 32;
  std::memcpy(&file[24], &entry_offset, 4);
  std::memcpy(&file[28], &count, 4);
  if (!entries.empty()) std::memcpy(file.data() + 32, entries.data(), entries.size());
  const std::string path = testing::TempDir() + "perfdata-" + std::to_string(getpid()) + (good_magic ? "" : "-bad");
  std::ofstream(path, std::ios::binary).write(file.data(), static_cast<std::streamsize>(file.size()));
  return path;
}

TEST(PerfData, FindsAStringAmongOtherEntries) {
  std::vector<char> entries;
  appendEntry(entries, "sun.rt.createVmBeginTime", 'J', std::string(8, '\1'));
  std::string command = "com.shop.Main --port 8080";
  command.resize(64, '\0');  // HotSpot keeps strings in fixed vectors, NUL-padded
  appendEntry(entries, "sun.rt.javaCommand", 'B', command);
  appendEntry(entries, "sun.rt.jvmCapabilities", 'B', std::string("1000000000000000") + std::string(48, '\0'));
  const std::string path = writePerfData(entries, 3);
  std::string value;
  ASSERT_TRUE(perfDataString(path, "sun.rt.javaCommand", value));
  EXPECT_EQ(value, "com.shop.Main --port 8080");
  ASSERT_TRUE(perfDataString(path, "sun.rt.jvmCapabilities", value));
  EXPECT_EQ(value[0], '1');
  EXPECT_FALSE(perfDataString(path, "sun.rt.createVmBeginTime", value));  // a number, not a string
  EXPECT_FALSE(perfDataString(path, "sun.rt.javaComman", value));
  std::remove(path.c_str());
}

TEST(PerfData, RefusesWhatIsNotPerfData) {
  std::vector<char> entries;
  appendEntry(entries, "sun.rt.javaCommand", 'B', "Main");
  std::string value;
  const std::string bad = writePerfData(entries, 1, false);
  EXPECT_FALSE(perfDataString(bad, "sun.rt.javaCommand", value));
  std::remove(bad.c_str());
  // More entries announced than there are bytes: no read past the end.
  const std::string truncated = writePerfData(entries, 1000);
  EXPECT_TRUE(perfDataString(truncated, "sun.rt.javaCommand", value));
  EXPECT_FALSE(perfDataString(truncated, "missing", value));
  std::remove(truncated.c_str());
  EXPECT_FALSE(perfDataString("/nonexistent/perfdata", "x", value));
}

}  // namespace
}  // namespace stackscope::native

#include "native/jvm_processes.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "native/jvm_attach.h"
#include "native/jvm_perf_data.h"
#include "native/small_file.h"

namespace stackscope::native {

namespace {

// The launcher's options that take the next argument as their value.
bool takesValue(const std::string& option) {
  static const char* const kWithValue[] = {"-cp", "-classpath", "--class-path", "-p", "--module-path",
                                           "--upgrade-module-path", "--add-modules", "--limit-modules",
                                           "--add-reads", "--add-exports", "--add-opens", "--patch-module"};
  return std::any_of(std::begin(kWithValue), std::end(kWithValue), [&](const char* known) { return option == known; });
}

std::string ownerName(const std::string& proc_dir) {
  struct stat info {};
  if (::stat(proc_dir.c_str(), &info) != 0) return {};
  passwd entry{};
  passwd* found = nullptr;
  char buffer[1024];
  if (getpwuid_r(info.st_uid, &entry, buffer, sizeof buffer, &found) == 0 && found) return found->pw_name;
  return std::to_string(info.st_uid);
}

}  // namespace

std::string mainClassFromCommandLine(const std::string& cmdline) {
  std::vector<std::string> args;
  for (size_t start = 0; start < cmdline.size();) {
    size_t end = cmdline.find('\0', start);
    if (end == std::string::npos) end = cmdline.size();
    args.emplace_back(cmdline, start, end - start);
    start = end + 1;
  }
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if ((arg == "-jar" || arg == "-m" || arg == "--module") && i + 1 < args.size()) return arg + " " + args[i + 1];
    if (takesValue(arg)) {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] != '-') return arg;
  }
  return {};
}

std::vector<JvmProcess> listJvms() {
  std::vector<JvmProcess> jvms;
  DIR* proc = ::opendir("/proc");
  if (!proc) return jvms;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    const std::string dir = std::string("/proc/") + entry->d_name;
    const std::string maps = readSmallFile(dir + "/maps");
    if (maps.find("/libjvm.so") == std::string::npos) continue;
    JvmProcess jvm;
    jvm.pid = static_cast<pid_t>(pid);
    jvm.user = ownerName(dir);
    jvm.agent_loaded = maps.find("/libstackscope.so") != std::string::npos;
    // PerfData's sun.rt.javaCommand is what the launcher ran ("Main args", "app.jar args");
    // the command line when the JVM runs without PerfData.
    std::string command;
    const std::string perf = perfDataPath(jvm.pid);
    if (!perf.empty() && perfDataString(perf, "sun.rt.javaCommand", command) && !command.empty()) {
      jvm.main_class = command.substr(0, command.find(' '));
    } else {
      jvm.main_class = mainClassFromCommandLine(readSmallFile(dir + "/cmdline"));
    }
    jvms.push_back(std::move(jvm));
  }
  ::closedir(proc);
  std::sort(jvms.begin(), jvms.end(), [](const JvmProcess& a, const JvmProcess& b) { return a.pid < b.pid; });
  return jvms;
}

}  // namespace stackscope::native

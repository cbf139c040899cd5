#include "cli/control_session.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/agent_args.h"
#include "cli/command.h"
#include "cli/interrupt.h"
#include "common/duration.h"
#include "export/json_report.h"

namespace stackscope::cli {

using protocol::Json;

namespace {

constexpr const char* kUsage =
    "commands:\n"
    "  status                    recording, traces and settings, samples taken and lost, bytes written, clients\n"
    "  start [-e E] [-i I] [-o FILE] [--filter F] ...  start a recording with attach's options (start --help),\n"
    "  start OPTIONS             or with the agent's option string (event=cpu,interval=10ms,file=...)\n"
    "  stop                      stop the recording; its file is complete\n"
    "  mark NAME [--begin|--end] a marker: a point, or the begin or end of a phase\n"
    "  dump [-o FILE]            flush the recording; with -o, also copy the recording so far to FILE\n"
    "                            (a rotating one's parts on disk as the same parts of FILE: FILE, FILE-1, ...)\n"
    "  stream -o FILE [--duration D]  write the live recording to FILE until it or the server ends, D passes\n"
    "                            or Ctrl-C\n"
    "  filter [FILTER] [--classes GLOBS]  replace the running recording's thread annotation filter\n"
    "                            (user:u1;application:shop*) and/or its alloc trace's classes; \"\" clears one\n"
    "  histo                     a class histogram now (objects and bytes per class), into the recording;\n"
    "                            the heap walk stops the JVM meanwhile (report --view histogram)\n"
    "  detach                    stop every trace and let the agent go; the JVM runs on\n"
    "  close                     close the agent's control server only; a recording goes on\n";

int refused(const std::string& message) {
  std::cerr << "stackscope: error: " << message << '\n';
  return 1;
}

// A reply without its envelope, as --json prints it.
Json body(Json reply) {
  reply.erase("id");
  return reply;
}

// A filter of status as the user typed it, or what an empty one means.
std::string filterShown(const Json& s, const char* key) {
  const std::string text = s.value(key, std::string());
  return !text.empty() ? text : std::string(key) == "filter" ? "none (every thread)" : "none (every class)";
}

void printStatus(const Json& s, std::ostream& out) {
  auto number = [&](const char* key) { return s.contains(key) && s[key].is_number() ? s[key].get<int64_t>() : int64_t{-1}; };
  const Json settings = s.value("settings", Json::object());
  out << "recording:     " << (s.value("recording", false) ? "yes" : "no") << '\n';
  if (!s.contains("settings")) {  // no recording since the agent loaded (or since a detach)
    out << "clients:       " << number("clients") << '\n'
        << "control:       " << s.value("control", std::string()) << '\n'
        << "process RSS:   " << number("process_rss_bytes") / (1024 * 1024) << " MB\n";
    return;
  }
  out << "events:        " << settings.value("events", std::string()) << '\n';
  if (settings.contains("interval_ns")) out << "interval:      " << formatDuration(settings.value("interval_ns", int64_t{0})) << '\n';
  out << "options:       " << settings.value("options", std::string()) << '\n';
  // An agent of protocol version 1 names neither the filters in force nor the parts.
  if (s.contains("filter")) out << "filter:        " << filterShown(s, "filter") << '\n';
  if (s.contains("classes")) out << "classes:       " << filterShown(s, "classes") << '\n';
  out << "file:          " << s.value("part_file", s.value("file", std::string())) << '\n';
  if (number("part") > 0) {
    out << "set:           " << s.value("file", std::string()) << ": part " << number("part") << "; "
        << number("set_files") << " files on disk (parts " << number("set_first_part") << "-" << number("part")
        << "), " << number("set_bytes") << " bytes\n";
  }
  out << "samples:       " << number("samples") << '\n'
      << "lost:          " << number("lost") << '\n'
      << "bytes written: " << number("bytes_written") << '\n'
      << "clients:       " << number("clients") << '\n'
      << "control:       " << s.value("control", std::string()) << '\n'
      << "uptime:        " << formatDuration(number("uptime_ns")) << '\n'
      << "process RSS:   " << number("process_rss_bytes") / (1024 * 1024) << " MB\n";
}

int stream(protocol::Client& client, const std::string& path, int64_t duration_ns, bool json, std::ostream& out) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) return refused("cannot create '" + path + "'");
  uint64_t bytes = 0;
  bool ended = false;
  client.setStreamSink([&](std::string_view data) {
    if (data.empty()) ended = true;
    file.write(data.data(), static_cast<std::streamsize>(data.size()));
    bytes += data.size();
  });
  Json reply;
  std::string error;
  if (!client.request(Json{{"cmd", "stream"}}, reply, error)) return refused(error);
  // Ctrl-C ends a stream: the file keeps what arrived (complete chunks).
  const InterruptScope interrupt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(duration_ns);
  int code = 0;
  while (!ended && !interrupt.interrupted() && (duration_ns <= 0 || std::chrono::steady_clock::now() < deadline)) {
    protocol::Frame frame;
    const auto got = client.receive(frame, 200, error);
    if (got == protocol::Client::Received::Timeout) continue;
    if (got != protocol::Client::Received::Frame) {
      code = refused(got == protocol::Client::Received::Closed ? "the agent closed the connection" : error);
      break;
    }
    if (frame.type == protocol::FrameType::Stream) {
      if (frame.payload.empty()) ended = true;
      file.write(frame.payload.data(), static_cast<std::streamsize>(frame.payload.size()));
      bytes += frame.payload.size();
    }
  }
  client.setStreamSink(nullptr);
  file.close();
  if (!file) return refused("cannot write '" + path + "'");
  if (json) {
    exporting::writeJson(out, Json{{"ok", code == 0}, {"file", path}, {"bytes", bytes}, {"ended", ended}});
  } else if (code == 0) {
    out << "wrote " << bytes << " bytes of the recording to " << path << (ended ? " (end of stream)" : "") << '\n';
  }
  return code;
}

}  // namespace

void addControlTargetArgs(CLI::App* cmd, ControlTarget& target) {
  cmd->add_option("target", target.target, "The JVM's PID, or the control server's HOST:PORT or unix:PATH")->required();
  cmd->add_option("--token", target.token,
                  "The agent's token (default: from its control file in /tmp, readable by the JVM's user)");
  cmd->add_option("--connect-timeout", target.connect_timeout,
                  "How long to wait for the control server to answer the connection (default 5s; Ctrl-C ends the wait)");
}

void connectToTarget(const ControlTarget& target, const InterruptScope& interrupt, protocol::Client& client,
                     protocol::Json& hello) {
  const int64_t timeout_ns = parseDurationOption(target.connect_timeout, "--connect-timeout");
  if (timeout_ns < 1'000'000 || timeout_ns > int64_t{3600} * 1'000'000'000)
    throw UserError("--connect-timeout must be between 1ms and 1h");
  protocol::ConnectLimits limits;
  limits.timeout_ms = static_cast<int>(timeout_ns / 1'000'000);
  limits.cancelled = [&interrupt] { return interrupt.interrupted(); };
  std::string error;
  if (!protocol::connectToAgent(target.target, target.token, client, hello, error, limits)) throw UserError(error);
}

const std::vector<std::string>& controlCommandNames() {
  static const std::vector<std::string> names = {"status", "start", "stop",   "mark",  "dump", "stream",
                                                 "filter", "histo", "detach", "close", "help", "quit"};
  return names;
}

std::vector<std::string> splitWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) quote = 0;
      else word.push_back(c);
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

namespace {

// start's words: the agent's option string as one word, or attach's options (-e, -i,
// --filter, ..., -o FILE), turned into that string by the same code as attach's and checked
// by the agent's parser. Throws UserError; CLI::CallForHelp for --help.
std::string startOptions(const std::vector<std::string>& words, long pid) {
  if (words.size() == 2 && !words[1].starts_with("-")) return words[1];
  CLI::App app("start: a recording with these options; -o defaults to stackscope-PID-DATE-TIME.ssr here", "start");
  AgentArgs args;
  std::string output;
  addAgentArgs(&app, args);
  app.add_option("-o,--output", output, "Recording file (written by the JVM, as its user)");
  std::vector<std::string> reversed(words.rbegin(), words.rend() - 1);  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    throw;
  } catch (const CLI::ParseError& e) {
    throw UserError(std::string("start: ") + e.what());
  }
  if (output.empty()) output = defaultRecordingName(pid);
  const std::filesystem::path path = std::filesystem::absolute(output).lexically_normal();
  checkOptionValue(path.string(), "the output path");
  return agentOptions(args, path, "");
}

// Sends `command`, prints the outcome; see runControlCommand.
int send(protocol::Client& client, const Json& command, bool json, std::ostream& out) {
  Json reply;
  std::string error;
  const bool ok = client.request(command, reply, error);
  if (!ok && !reply.is_object()) {  // no reply at all: the connection broke
    std::cerr << "stackscope: error: " << error << '\n';
    return 2;
  }
  if (json) {
    exporting::writeJson(out, body(reply));
  } else if (ok && command.value("cmd", std::string()) == "status") {
    printStatus(reply, out);
  } else if (ok && reply.contains("message") && reply["message"].is_string()) {
    out << reply["message"].get<std::string>() << '\n';
  }
  if (!ok && !json) std::cerr << "stackscope: error: " << error << '\n';
  return ok ? 0 : 1;
}

}  // namespace

int runControlCommand(protocol::Client& client, const std::vector<std::string>& words, bool json, long pid,
                      std::ostream& out) {
  if (words.empty()) return 0;
  const std::string& name = words[0];
  Json command{{"cmd", name}};
  if (name == "start") {
    try {
      command["options"] = startOptions(words, pid);
    } catch (const CLI::CallForHelp&) {
      CLI::App help("start a recording", "start");
      AgentArgs args;
      addAgentArgs(&help, args);
      std::string output;
      help.add_option("-o,--output", output, "Recording file (default stackscope-PID-DATE-TIME.ssr here)");
      out << help.help();
      return 0;
    } catch (const UserError& e) {
      return refused(e.what());
    }
    return send(client, command, json, out);
  }
  std::string output;       // dump -o, stream -o
  int64_t duration_ns = 0;  // stream --duration
  // The words after the name: options, then at most one positional argument.
  std::vector<std::string> positional;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    if ((word == "-o" || word == "--duration") && i + 1 < words.size()) {
      if (word == "-o") {
        output = words[++i];
      } else if (auto ns = parseDuration(words[++i]); ns && *ns > 0) {
        duration_ns = *ns;
      } else {
        return refused("--duration: '" + words[i] + "' is not a duration (examples: 10s, 1m)");
      }
    } else if (name == "mark" && (word == "--begin" || word == "--end")) {
      command["kind"] = word.substr(2);
    } else if (name == "filter" && word == "--classes" && i + 1 < words.size()) {
      command["classes"] = words[++i];
    } else if (word.starts_with("-") && word.size() > 1) {
      return refused("unknown option '" + word + "' for " + name);
    } else {
      positional.push_back(word);
    }
  }
  const bool takes_text = name == "mark" || name == "filter";
  if (name == "help") {
    out << kUsage;
    return 0;
  }
  // The agent's commands: the prompt's names but its own help and quit.
  std::string commands;
  bool known = false;
  for (const std::string& command_name : controlCommandNames()) {
    if (command_name == "help" || command_name == "quit") continue;
    commands += (commands.empty() ? "" : ", ") + command_name;
    known = known || command_name == name;
  }
  if (!known) return refused("unknown command '" + name + "' (commands: " + commands + ")");
  if (name == "filter" && positional.empty() && !command.contains("classes")) {
    return refused("usage: filter [FILTER] [--classes GLOBS]");
  }
  if (positional.size() > (takes_text ? 1u : 0u) || (name == "mark" && positional.empty())) {
    return refused(name == "mark" ? "usage: mark NAME [--begin|--end]" : "too many arguments for " + name + " (see help)");
  }
  if (!output.empty() && name != "dump" && name != "stream") return refused("-o is for dump and stream");
  if (duration_ns > 0 && name != "stream") return refused("--duration is for stream");
  if (name == "stream") {
    if (output.empty()) return refused("usage: stream -o FILE [--duration D]");
    return stream(client, output, duration_ns, json, out);
  }
  // `begin:NAME` reads like a begin marker but would be a point marker of that name.
  if (name == "mark" && (positional[0].starts_with("begin:") || positional[0].starts_with("end:"))) {
    const std::string kind = positional[0].substr(0, positional[0].find(':'));
    return refused("mark: a marker name does not start with '" + kind + ":'; a " + kind + " marker is `mark " +
                   positional[0].substr(kind.size() + 1) + " --" + kind + "`");
  }
  if (!positional.empty()) command[name == "mark" ? "name" : "filter"] = positional[0];
  // The agent opens the path in the JVM's working directory: make it the user's.
  if (!output.empty()) command["path"] = std::filesystem::absolute(output).string();
  return send(client, command, json, out);
}

}  // namespace stackscope::cli

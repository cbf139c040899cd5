// The JSON messages carried by Request, Reply and Error frames (docs/protocol.md), and the
// few helpers both ends use to read them. Built without exceptions (the agent's flags): every
// access to a parsed message goes through these checked getters, since nlohmann's unchecked
// ones abort the process on a wrong type when exceptions are off.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace stackscope::protocol {

using Json = nlohmann::ordered_json;  // keys in the order written: replies read by people too

// The protocol versions this build speaks; hello picks the highest both sides know.
inline constexpr int64_t kProtocolVersion = 3;
inline constexpr int64_t kOldestProtocolVersion = 1;

// Error codes of Reply (ok=false) and Error frames.
namespace error {
inline constexpr const char* kUnauthenticated = "unauthenticated";  // first request not a hello with the right token
inline constexpr const char* kMalformed = "malformed";              // not a JSON object, or a field of the wrong type
inline constexpr const char* kOversized = "oversized";              // frame above the maximum payload
inline constexpr const char* kBadFrame = "bad_frame";               // unknown frame type, or a type a client may not send
inline constexpr const char* kUnknownCommand = "unknown_command";
inline constexpr const char* kUnsupportedVersion = "unsupported_version";
inline constexpr const char* kBadArgument = "bad_argument";  // a command's argument is invalid
inline constexpr const char* kUnavailable = "unavailable";   // valid, but not possible in the agent's state
inline constexpr const char* kFailed = "failed";             // tried and failed (I/O error, timeout)
}  // namespace error

// Parses `text` as one JSON object; false (and `out` untouched) for anything else.
bool parseObject(std::string_view text, Json& out);
// Serialises compactly; invalid UTF-8 in strings is replaced, never fatal.
std::string encode(const Json& value);

// Checked field access: false when the key is missing or of another type.
bool getString(const Json& object, const char* key, std::string& out);
bool getInt(const Json& object, const char* key, int64_t& out);
bool getBool(const Json& object, const char* key, bool& out);

// {"id":ID,"ok":true} and {"id":ID,"ok":false,"error":CODE,"message":TEXT}; id is echoed
// from the request (absent when the request had none).
Json okReply(const Json& request);
Json errorReply(const Json& request, const char* code, std::string message);
// The body of an Error frame: {"error":CODE,"message":TEXT}.
Json connectionError(const char* code, std::string message);

}  // namespace stackscope::protocol

#include "protocol/message.h"

namespace stackscope::protocol {

bool parseObject(std::string_view text, Json& out) {
  Json parsed = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return false;  // also the discarded value of a parse error
  out = std::move(parsed);
  return true;
}

std::string encode(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

bool getString(const Json& object, const char* key, std::string& out) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return false;
  out = it->get_ref<const std::string&>();
  return true;
}

bool getInt(const Json& object, const char* key, int64_t& out) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return false;
  out = it->is_number_unsigned() && it->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : it->get<int64_t>();
  return true;
}

bool getBool(const Json& object, const char* key, bool& out) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_boolean()) return false;
  out = it->get<bool>();
  return true;
}

Json okReply(const Json& request) {
  Json reply = Json::object();
  if (const auto it = request.find("id"); it != request.end() && it->is_number_integer()) reply["id"] = *it;
  reply["ok"] = true;
  return reply;
}

Json errorReply(const Json& request, const char* code, std::string message) {
  Json reply = okReply(request);
  reply["ok"] = false;
  reply["error"] = code;
  reply["message"] = std::move(message);
  return reply;
}

Json connectionError(const char* code, std::string message) {
  return Json{{"error", code}, {"message", std::move(message)}};
}

}  // namespace stackscope::protocol

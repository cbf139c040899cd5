// libFuzzer target for the control protocol's decoder (protocol/frame.h) and message parser
// (protocol/message.h), as the control server runs them on whatever a client sends: bytes fed
// in pieces of the sizes the input chooses, every frame's payload parsed as a request and its
// fields read with the checked getters. Must never crash, hang or keep more than one frame.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "protocol/frame.h"
#include "protocol/message.h"

using namespace stackscope::protocol;

namespace {
// A small maximum, like the server's request limit, so that oversized frames are reached.
constexpr uint32_t kMaxPayload = 64 * 1024;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the piece size (1 to 256 bytes): frames split across reads.
  const size_t piece = size_t{data[0]} + 1;
  FrameDecoder decoder(kMaxPayload);
  for (size_t at = 1; at < size;) {
    const size_t n = std::min(piece, size - at);
    decoder.feed(reinterpret_cast<const char*>(data + at), n);
    at += n;
    Frame frame;
    DecodeResult result;
    while ((result = decoder.next(frame)) == DecodeResult::Frame) {
      if (frame.payload.size() > kMaxPayload) std::abort();
      Json request;
      if (!parseObject(frame.payload, request)) continue;
      std::string text;
      int64_t number = 0;
      bool flag = false;
      getString(request, "cmd", text);
      getString(request, "token", text);
      getInt(request, "id", number);
      getBool(request, "ok", flag);
      encode(errorReply(request, error::kMalformed, text));
    }
    if (result != DecodeResult::NeedMore) return 0;  // the server closes the connection here
    if (decoder.buffered() > kMaxPayload + kFrameHeaderBytes + piece) std::abort();
  }
  return 0;
}
